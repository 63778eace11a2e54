import PropertyBased
import Testing

@testable import ReduxCore

/// The history on its own, and against a naive model: two arrays, the oldest dropped with
/// `removeFirst`.
@Suite struct UndoHistoryTests {
  @Test func undoReturnsTheSnapshotsNewestFirstAndRedoReturnsThemBack() {
    var history = UndoHistory<Int>(capacity: 10)
    var present = 0
    for next in 1...3 {
      history.record(present)
      present = next
    }
    #expect(history.undoCount == 3)
    present = history.undo(from: present) ?? present
    #expect(present == 2)
    present = history.undo(from: present) ?? present
    #expect(present == 1)
    #expect((history.undoCount, history.redoCount) == (1, 2))
    present = history.redo(from: present) ?? present
    #expect(present == 2)
    present = history.redo(from: present) ?? present
    #expect(present == 3)
    #expect((history.undoCount, history.redoCount) == (3, 0))
    #expect(history.lastOutcome == .redone)
  }

  @Test func recordingBeyondTheCapacityDropsTheOldest() {
    var history = UndoHistory<Int>(capacity: 3)
    for snapshot in 0..<5 { history.record(snapshot) }
    #expect(history.undoCount == 3)
    #expect(history.undo(from: 5) == 4)
    #expect(history.undo(from: 4) == 3)
    #expect(history.undo(from: 3) == 2)
    #expect(history.undo(from: 2) == nil)
    #expect(history.lastOutcome == .nothingToUndo)
    #expect(history.redoCount == 3)
  }

  @Test func aNewRecordClearsTheRedoSide() {
    var history = UndoHistory<Int>(capacity: 5)
    history.record(0)
    history.record(1)
    #expect(history.undo(from: 2) == 1)
    #expect(history.canRedo)
    history.record(1)
    #expect(!history.canRedo)
    #expect(history.redo(from: 7) == nil)
    #expect(history.lastOutcome == .nothingToRedo)
    #expect(history.undoCount == 2)
  }

  @Test func undoWithNothingToUndoChangesNothingButTheOutcome() {
    var history = UndoHistory<Int>(capacity: 2)
    #expect(!history.canUndo)
    #expect(history.lastOutcome == nil)
    #expect(history.undo(from: 1) == nil)
    #expect(history.lastOutcome == .nothingToUndo)
    #expect((history.undoCount, history.redoCount) == (0, 0))
    #expect(history.redo(from: 1) == nil)
    #expect(history.lastOutcome == .nothingToRedo)
    #expect("\(UndoOutcome.nothingToUndo)" == "nothing to undo")
  }

  @Test func recordsWithTheSameCoalescingKeyMakeOneEntry() {
    var history = UndoHistory<String>(capacity: 10)
    history.record("", coalescingKey: "title")
    history.record("H", coalescingKey: "title")
    history.record("Hi", coalescingKey: "title")
    #expect(history.lastOutcome == .coalesced)
    #expect(history.undoCount == 1)
    #expect(history.undo(from: "Hi!") == "")
  }

  @Test func aCoalescingRunEndsAtAnotherKeyARecordWithoutKeyOrAnUndo() {
    var history = UndoHistory<Int>(capacity: 10)
    history.record(0, coalescingKey: "a")
    history.record(1, coalescingKey: "b")
    history.record(2, coalescingKey: "b")
    #expect(history.undoCount == 2)
    history.record(3)
    history.record(4, coalescingKey: "b")
    #expect(history.undoCount == 4)
    #expect(history.undo(from: 5) == 4)
    history.record(4, coalescingKey: "b")
    #expect(history.undoCount == 4)
    #expect(history.lastOutcome == .recorded)
  }

  @Test func removeAllForgetsEverySnapshotAndKeepsTheCapacity() {
    var history = UndoHistory<Int>(capacity: 2)
    history.record(0)
    history.record(1)
    _ = history.undo(from: 2)
    history.removeAll()
    #expect((history.undoCount, history.redoCount) == (0, 0))
    #expect(history.lastOutcome == nil)
    #expect(history.capacity == 2)
    for snapshot in 0..<3 { history.record(snapshot) }
    #expect(history.undoCount == 2)
  }

  @Test(arguments: [0, -3])
  func aCapacityBelowOneIsOneAndSaysSo(capacity: Int) {
    var history = UndoHistory<Int>(capacity: capacity)
    #expect(history.capacity == 1)
    #expect(history.adjustments == ["UndoHistory: capacity \(capacity) keeps nothing; using 1"])
    history.record(0)
    history.record(1)
    #expect(history.undo(from: 2) == 1)
    #expect(history.undo(from: 1) == nil)
  }

  @Test func aCapacityInRangeIsKeptWithoutAdjustment() {
    let history = UndoHistory<Int>(capacity: 1)
    #expect(history.adjustments.isEmpty)
    #expect(!history.reportsAdjustments)
  }

  // MARK: - Against the naive model

  @Test func everySequenceOfSevenOperationsAgreesWithTheModel() {
    var failures: [String] = []
    for capacity in 1...3 {
      let length = 7
      let alphabet = HistoryStep.count
      var total = 1
      for _ in 0..<length { total *= alphabet }
      for number in 0..<total {
        var codes: [Int] = []
        var rest = number
        for _ in 0..<length {
          codes.append(rest % alphabet)
          rest /= alphabet
        }
        if let failure = firstDisagreement(capacity: capacity, codes: codes) {
          failures.append(failure)
        }
      }
    }
    #expect(failures.isEmpty, "\(failures.prefix(3))")
  }

  @Test func randomLongSequencesAgreeWithTheModel() async {
    let codes = Gen.int(in: 0...(HistoryStep.count - 1)).array(of: 0...200)
    await propertyCheck(count: 300, input: Gen.int(in: 1...6), codes) { capacity, codes in
      #expect(firstDisagreement(capacity: capacity, codes: codes) == nil)
    }
  }

  /// One step of the model-based tests, decoded from an integer so that a failing sequence
  /// shrinks to a minimal one.
  enum HistoryStep: CustomStringConvertible {
    case record, recordCoalescing, undo, redo, removeAll

    static let count = 5

    init(code: Int) {
      self = [.record, .recordCoalescing, .undo, .redo, .removeAll][code]
    }

    var description: String {
      switch self {
      case .record: "record"
      case .recordCoalescing: "record(k)"
      case .undo: "undo"
      case .redo: "redo"
      case .removeAll: "removeAll"
      }
    }
  }

  /// The naive history: snapshots to undo (oldest first) and to redo (next first).
  struct Model {
    let capacity: Int
    var past: [Int] = []
    var future: [Int] = []
    var coalescingKey: String?
    var lastOutcome: UndoOutcome?

    mutating func record(_ snapshot: Int, key: String?) {
      if let key, key == coalescingKey {
        lastOutcome = .coalesced
        return
      }
      future = []
      past.append(snapshot)
      if past.count > capacity { past.removeFirst() }
      coalescingKey = key
      lastOutcome = .recorded
    }

    mutating func undo(from present: Int) -> Int? {
      coalescingKey = nil
      guard let snapshot = past.popLast() else {
        lastOutcome = .nothingToUndo
        return nil
      }
      future.insert(present, at: 0)
      lastOutcome = .undone
      return snapshot
    }

    mutating func redo(from present: Int) -> Int? {
      coalescingKey = nil
      guard !future.isEmpty else {
        lastOutcome = .nothingToRedo
        return nil
      }
      past.append(present)
      lastOutcome = .redone
      return future.removeFirst()
    }
  }

  /// Plays `codes` on a history and the model, the present advancing by one on each record
  /// (an edit); returns the first disagreement, or `nil`.
  func firstDisagreement(capacity: Int, codes: [Int]) -> String? {
    var history = UndoHistory<Int>(capacity: capacity)
    var model = Model(capacity: capacity)
    var present = 0
    var edits = 0
    var done: [HistoryStep] = []
    for code in codes {
      let step = HistoryStep(code: code)
      done.append(step)
      switch step {
      case .record, .recordCoalescing:
        let key = step == .record ? nil : "k"
        history.record(present, coalescingKey: key)
        model.record(present, key: key)
        edits += 1
        present = 1000 + edits
      case .undo:
        let restored = history.undo(from: present)
        let expected = model.undo(from: present)
        if restored != expected { return "after \(done): undo gave \(restored as Any)" }
        present = restored ?? present
      case .redo:
        let restored = history.redo(from: present)
        let expected = model.redo(from: present)
        if restored != expected { return "after \(done): redo gave \(restored as Any)" }
        present = restored ?? present
      case .removeAll:
        history.removeAll()
        model = Model(capacity: capacity)
      }
      if history.undoCount != model.past.count || history.redoCount != model.future.count
        || history.canUndo == model.past.isEmpty || history.canRedo == model.future.isEmpty
        || history.lastOutcome != model.lastOutcome
      {
        return "after \(done): \(history.undoCount) to undo, \(history.redoCount) to redo, "
          + "\(history.lastOutcome as Any); expected \(model.past) \(model.future) "
          + "\(model.lastOutcome as Any)"
      }
    }
    return nil
  }
}
