import PropertyBased
import Testing

@Suite struct EntityStoreModelTests {
  @Test func randomOperationSequencesAgreeWithTheReferenceModel() async {
    let codes = Gen.int(in: 0...(Operation.kinds * 6 * 4 - 1)).array(of: 0...60)
    await propertyCheck(count: 300, input: codes) { codes in
      let disagreement = firstDisagreement(codes: codes, ids: 6, values: 4)
      #expect(disagreement == nil)
    }
  }

  @Test func everySequenceOfThreeOperationsOnTwoIDsAgrees() {
    let alphabet = Operation.kinds * 2 * 2
    var failures: [String] = []
    for first in 0..<alphabet {
      for second in 0..<alphabet {
        for third in 0..<alphabet {
          if let failure = firstDisagreement(codes: [first, second, third], ids: 2, values: 2) {
            failures.append(failure)
          }
        }
      }
    }
    #expect(failures.isEmpty, "\(failures.prefix(3))")
  }

  @Test func manyDeletionsCompactAndStillAgree() {
    // 40 inserts then deleting most of them crosses the compaction threshold.
    let inserts = (0..<40).map { $0 * Operation.kinds }  // .set(id, 0) for ids 0..<40
    let deletes = (0..<35).map { 2 + $0 * Operation.kinds }  // .delete(id)
    #expect(firstDisagreement(codes: inserts + deletes + [3, 7], ids: 40, values: 1) == nil)
  }
}
