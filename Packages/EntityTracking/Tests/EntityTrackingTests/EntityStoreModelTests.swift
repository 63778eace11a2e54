import PropertyBased
import Testing

@testable import EntityTracking

/// The store against the naive reference model (Support.swift): after every operation its
/// invariants hold and everything it exposes (values, lookups, the collection, the ordered
/// change set) agrees with the model.
@Suite struct EntityStoreModelTests {
  @Test func randomOperationSequencesAgreeWithTheReferenceModel() async {
    let codes = Gen.int(in: 0...(Operation.codeCount(ids: 6, values: 4) - 1)).array(of: 0...60)
    await propertyCheck(count: 300, input: codes) { codes in
      let disagreement = firstDisagreement(codes: codes, ids: 6, values: 4)
      #expect(disagreement == nil)
    }
  }

  @Test func longInsertDeleteSequencesCrossTheCompactionThresholdAndAgree() async {
    // NB: many ids and no bulk operation (bulk operations compact), so tombstones pile up in the
    // middle past the threshold (a probe counted ~1 compaction per sequence).
    let kinds: [Operation.Kind] = [.set, .delete, .modify, .drain, .removeMany]
    let codes = Gen.int(in: 0...(Operation.codeCount(kinds: kinds, ids: 24, values: 2) - 1))
      .array(of: 200...400)
    await propertyCheck(count: 100, input: codes) { codes in
      let disagreement = firstDisagreement(codes: codes, ids: 24, values: 2, kinds: kinds)
      #expect(disagreement == nil)
    }
  }

  @Test func foldingSuccessiveDrainsEqualsOneDrain() async {
    let codes = Gen.int(in: 0...(Operation.codeCount(ids: 5, values: 3) - 1)).array(of: 0...60)
    await propertyCheck(count: 300, input: codes) { codes in
      let disagreement = foldedDrainsDisagreement(codes: codes, ids: 5, values: 3)
      #expect(disagreement == nil)
    }
  }

  @Test func everySequenceOfThreeOperationsOnTwoIDsAgrees() {
    let alphabet = Operation.codeCount(ids: 2, values: 2)
    var failures: [String] = []
    for first in 0..<alphabet {
      for second in 0..<alphabet {
        for third in 0..<alphabet {
          let codes = [first, second, third]
          if let failure = firstDisagreement(codes: codes, ids: 2, values: 2) {
            failures.append(failure)
          }
          if let failure = foldedDrainsDisagreement(codes: codes, ids: 2, values: 2) {
            failures.append(failure)
          }
        }
      }
    }
    #expect(failures.isEmpty, "\(failures.prefix(3))")
  }

  @Test func everySequenceOfFiveInsertsDeletesAndDrainsOnTwoIDsAgrees() {
    let failures = disagreementsOfEverySequence(
      length: 5, ids: 2, values: 2, kinds: [.set, .delete, .drain])
    #expect(failures.isEmpty, "\(failures.prefix(3))")
  }

  @Test func manyDeletionsCompactAndStillAgree() {
    let kinds = Operation.Kind.allCases
    func code(_ kind: Operation.Kind, id: Int) -> Int {
      kinds.firstIndex(of: kind)! + id * kinds.count
    }
    // 40 inserts, then deleting most of them in an order that leaves tombstones at the start,
    // in the middle and at the end, crosses the compaction threshold.
    let inserts = (0..<40).map { code(.set, id: $0) }
    let deletes = ((5..<20).reversed() + (20..<40) + (0..<5)).map { code(.delete, id: $0) }
    let tail = [code(.set, id: 3), code(.drain, id: 0), code(.set, id: 7)]
    #expect(firstDisagreement(codes: inserts + deletes + tail, ids: 40, values: 1) == nil)
  }
}

/// Runs `codes` twice: once draining where the sequence says, folding the drained change sets
/// with `formUnion`, and once never draining. Returns how the fold differs from the one change
/// set of the undrained run, or `nil`.
func foldedDrainsDisagreement(codes: [Int], ids: Int, values: Int) -> String? {
  var drainedStore = EntityStore<Item>()
  var undrainedStore = EntityStore<Item>()
  var drainedModel = ReferenceModel()
  var undrainedModel = ReferenceModel()
  var folded = ChangeSet<Int>()
  for code in codes {
    let operation = Operation(code: code, ids: ids, values: values)
    if let drained = operation.apply(to: &drainedStore, &drainedModel) {
      folded.formUnion(drained.store)
    } else {
      _ = operation.apply(to: &undrainedStore, &undrainedModel)
    }
  }
  folded.formUnion(drainedStore.drainChanges())
  let whole = undrainedStore.changes
  do {
    try folded.checkInvariants()
  } catch {
    return "\(error)"
  }
  guard folded != whole else { return nil }
  let operations = codes.map { Operation(code: $0, ids: ids, values: values) }
  return "after \(operations): folded drains \(folded), one drain \(whole)"
}
