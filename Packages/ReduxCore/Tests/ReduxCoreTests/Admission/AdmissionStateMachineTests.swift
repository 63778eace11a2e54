import Testing

@testable import ReduxCore

/// The admission policies as tables: (event at t → decision at t), one key, integer tickets.
@Suite struct AdmissionStateMachineTests {
  typealias Machine = AdmissionStateMachine<String, Int>
  typealias Decision = Machine.Decision

  /// An event of a table: an offer of a ticket, or the key's timer firing.
  enum Event {
    case offer(Int, at: Int)
    case timer(at: Int)
    case end(Int)
  }

  /// Runs `events` (times in milliseconds) and returns each event's decision.
  func run(_ policy: AdmissionPolicy, _ events: [Event]) -> [Decision] {
    var machine = Machine()
    return events.map { event in
      switch event {
      case .offer(let ticket, let at):
        machine.offer(ticket, key: "k", policy: policy, now: .milliseconds(at))
      case .timer(let at):
        machine.deadlineReached("k", policy: policy, now: .milliseconds(at))
      case .end(let ticket):
        {
          machine.ended(ticket, key: "k")
          return Decision()
        }()
      }
    }
  }

  func ms(_ value: Int) -> Duration { .milliseconds(value) }

  @Test func limitAdmitsUpToNPendingAndFreesASlotWhenOneEnds() {
    let decisions = run(
      .limit(2), [.offer(1, at: 0), .offer(2, at: 0), .offer(3, at: 0), .end(1), .offer(4, at: 1)])
    #expect(
      decisions == [
        Decision(admitted: 1), Decision(admitted: 2), Decision(refused: .limited(2)), Decision(),
        Decision(admitted: 4),
      ])
  }

  @Test func limitZeroIsUnlimited() {
    let decisions = run(.limit(0), (1...5).map { .offer($0, at: 0) })
    #expect(decisions == (1...5).map { Decision(admitted: $0) })
  }

  @Test func latestAdmitsTheNewOneAndSupersedesThePendingOne() {
    let decisions = run(
      .latest, [.offer(1, at: 0), .offer(2, at: 1), .end(2), .offer(3, at: 2), .end(1)])
    #expect(
      decisions == [
        Decision(admitted: 1), Decision(admitted: 2, superseded: 1), Decision(),
        Decision(admitted: 3), Decision(),
      ])
  }

  @Test func debounceAdmitsTheLastAfterQuiet() {
    let decisions = run(
      .debounce(ms(100)),
      [.offer(1, at: 0), .offer(2, at: 50), .timer(at: 100), .timer(at: 150), .timer(at: 151)])
    #expect(
      decisions == [
        Decision(armAt: ms(100)),
        Decision(superseded: 1, armAt: ms(150)),
        Decision(armAt: ms(150)),  // the first timer fired before the new deadline: re-armed
        Decision(admitted: 2),
        Decision(),
      ])
  }

  @Test func debounceMaxWaitAdmitsAStreamThatNeverPauses() {
    // One offer every 60 ms under a 100 ms debounce: without maxWait nothing would ever go.
    let decisions = run(
      .debounce(ms(100), maxWait: ms(150)),
      [
        .offer(1, at: 0), .offer(2, at: 60), .offer(3, at: 120), .timer(at: 150),
        .offer(4, at: 180),
      ])
    #expect(
      decisions == [
        Decision(armAt: ms(100)),
        Decision(superseded: 1, armAt: ms(150)),
        Decision(superseded: 2, armAt: ms(150)),  // min(120 + 100, 0 + 150)
        Decision(admitted: 3),
        Decision(armAt: ms(280)),  // a new run: its maxWait counts from 180
      ])
  }

  @Test func throttleLeadingAndTrailing() {
    let decisions = run(
      .throttle(ms(100)),
      [
        .offer(1, at: 0), .offer(2, at: 30), .offer(3, at: 60), .timer(at: 100),
        .offer(4, at: 150), .timer(at: 200), .timer(at: 300), .offer(5, at: 400),
      ])
    #expect(
      decisions == [
        Decision(admitted: 1),  // leading: at once, opens [0, 100)
        Decision(armAt: ms(100)),  // held for the window's end
        Decision(superseded: 2),  // the newer one is held instead
        Decision(admitted: 3),  // trailing: at the window's end, opening [100, 200)
        Decision(armAt: ms(200)),
        Decision(admitted: 4),  // opening [200, 300)
        Decision(),  // nothing held: the window closes
        Decision(admitted: 5),  // a quiet period again: leading
      ])
  }

  @Test func throttleWithoutTrailingRefusesWithinTheWindow() {
    let decisions = run(
      .throttle(ms(100), trailing: false),
      [.offer(1, at: 0), .offer(2, at: 99), .offer(3, at: 100)])
    #expect(
      decisions == [
        Decision(admitted: 1), Decision(refused: .throttled(ms(100))), Decision(admitted: 3),
      ])
  }

  @Test func throttleWithoutLeadingHoldsTheFirstUntilTheWindowEnds() {
    let decisions = run(
      .throttle(ms(100), leading: false),
      [.offer(1, at: 0), .offer(2, at: 50), .timer(at: 100), .timer(at: 200)])
    #expect(
      decisions == [
        Decision(armAt: ms(100)), Decision(superseded: 1), Decision(admitted: 2), Decision(),
      ])
  }

  @Test func throttleWithNeitherEdgeUsesLeading() {
    let decisions = run(
      .throttle(ms(100), leading: false, trailing: false), [.offer(1, at: 0), .offer(2, at: 10)])
    #expect(decisions == [Decision(admitted: 1), Decision(refused: .throttled(ms(100)))])
  }

  @Test func keysAreIndependent() {
    var machine = Machine()
    let first = machine.offer(1, key: "a", policy: .latest, now: .zero)
    let second = machine.offer(2, key: "b", policy: .latest, now: .zero)
    #expect(first == Decision(admitted: 1) && second == Decision(admitted: 2))
  }

  @Test func shutdownReturnsWhatWasHeldAndForgetsEverything() {
    var machine = Machine()
    _ = machine.offer(1, key: "a", policy: .debounce(ms(10)), now: .zero)
    _ = machine.offer(2, key: "b", policy: .latest, now: .zero)
    #expect(machine.shutdown() == [1])
    #expect(machine.slots.isEmpty)
  }

  @Test func endedSlotsAreForgotten() {
    var machine = Machine()
    _ = machine.offer(1, key: "a", policy: .limit(1), now: .zero)
    machine.ended(1, key: "a")
    #expect(machine.slots.isEmpty)
  }
}
