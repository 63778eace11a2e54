import Testing

@testable import QueryCache

/// The entry lifecycle as tables: events in, the decision and the gc-timer action out, with the
/// phase after each step. Time is a plain `Duration` passed in: the machine reads no clock.
@Suite(.timeLimit(.minutes(1))) struct QueryEntryStateMachineTests {
  typealias Machine = QueryEntryStateMachine<String>

  func entry(observers: Int = 0) -> Machine {
    Machine(
      valueType: ObjectIdentifier(Int.self), typeName: "Int", gcTime: .seconds(300),
      observers: observers)
  }

  @Test func aFetchRunsThenCachesAndTheEntryBecomesCollectable() {
    var machine = entry()
    #expect(machine.phase == .empty)
    guard case .start = machine.requestFetch(forced: false, staleTime: .zero, now: .zero) else {
      Issue.record("expected start")
      return
    }
    let outcome1 = machine.didStart(id: 1, fetch: "f1")
    #expect(outcome1 == .cancel)
    #expect(machine.phase == .fetching)
    guard
      case .join("f1", id: 1) = machine.requestFetch(forced: false, staleTime: .zero, now: .zero)
    else {
      Issue.record("a second caller must join the fetch in flight")
      return
    }
    #expect(machine.inFlight?.joined == 1)
    let (completion, collection) = machine.finish(id: 1, result: .success(7), now: .seconds(1))
    #expect(completion == .stored && collection == .schedule(after: .seconds(300)))
    #expect(machine.phase == .cached && machine.value as? Int == 7)
    #expect(machine.collectionIsDue())
  }

  @Test(arguments: [
    // (age, staleTime, fresh)
    (Duration.zero, Duration.zero, false), (.milliseconds(999), .seconds(1), true),
    (.seconds(1), .seconds(1), false),
  ])
  func aCachedValueIsFreshUntilItsAgeReachesTheStaleTime(
    age: Duration, staleTime: Duration, fresh: Bool
  ) {
    var machine = entry()
    _ = machine.set(1, now: .seconds(10))
    guard
      case .cached(_, let isFresh, _) = machine.requestFetch(
        forced: false, staleTime: staleTime, now: .seconds(10) + age)
    else {
      Issue.record("expected the cached value")
      return
    }
    #expect(isFresh == fresh)
  }

  @Test func aForcedFetchStartsEvenOverACachedValue() {
    var machine = entry()
    _ = machine.set(1, now: .zero)
    guard case .start = machine.requestFetch(forced: true, staleTime: .seconds(60), now: .zero)
    else {
      Issue.record("expected start")
      return
    }
  }

  @Test func aResultInvalidatedInFlightGoesToItsCallersButNotIntoTheCache() {
    var machine = entry()
    _ = machine.set(1, now: .zero)
    _ = machine.requestFetch(forced: true, staleTime: .zero, now: .zero)
    _ = machine.didStart(id: 1, fetch: "f1")
    #expect(machine.invalidate() == .cancel)  // still fetching: kept
    #expect(machine.value == nil)
    let (completion, collection) = machine.finish(id: 1, result: .success(2), now: .seconds(1))
    #expect(completion == .discarded && collection == .schedule(after: .seconds(300)))
    #expect(machine.phase == .empty)
  }

  @Test func aPatchReplacesTheValueAndKeepsItsAgeAndError() {
    var machine = entry()
    _ = machine.set(1, now: .seconds(10))
    _ = machine.requestFetch(forced: true, staleTime: .zero, now: .seconds(20))
    _ = machine.didStart(id: 1, fetch: "f1")
    _ = machine.finish(id: 1, result: .failure(CancellationError()), now: .seconds(30))
    #expect(machine.patch(2) == .schedule(after: .seconds(300)))
    #expect(machine.value as? Int == 2 && machine.updatedAt == .seconds(10))
    #expect(machine.error is CancellationError)
    #expect(machine.phase == .cached)
  }

  @Test func aFailedRefreshKeepsTheValueAndRecordsTheError() {
    var machine = entry()
    _ = machine.set(1, now: .zero)
    _ = machine.requestFetch(forced: true, staleTime: .zero, now: .zero)
    _ = machine.didStart(id: 1, fetch: "f1")
    let (completion, _) = machine.finish(
      id: 1, result: .failure(CancellationError()), now: .seconds(1))
    #expect(completion == .stored)
    #expect(machine.value as? Int == 1 && machine.error is CancellationError)
  }

  @Test func aCancelledFetchIsHandedBackAndItsLateResultIgnored() {
    var machine = entry()
    _ = machine.requestFetch(forced: false, staleTime: .zero, now: .zero)
    _ = machine.didStart(id: 1, fetch: "f1")
    let (cancelled, collection) = machine.cancel()
    #expect(cancelled == "f1" && collection == .schedule(after: .seconds(300)))
    let outcome2 = machine.finish(id: 1, result: .success(3), now: .seconds(1))
    #expect(outcome2.0 == .ignored)
    #expect(machine.value == nil)
  }

  @Test func anObservedEntryIsNeverCollected() {
    var machine = entry()
    _ = machine.set(1, now: .zero)
    let outcome3 = machine.observerAdded()
    #expect(outcome3 == .cancel)
    #expect(!machine.collectionIsDue())
    let outcome4 = machine.observerAdded()
    #expect(outcome4 == .cancel)
    let outcome5 = machine.observerRemoved()
    #expect(outcome5 == .cancel)
    let outcome6 = machine.observerRemoved()
    #expect(outcome6 == .schedule(after: .seconds(300)))
    #expect(machine.collectionIsDue())
  }

  @Test func anEntryOfAnotherTypeIsRefusedWhileItHoldsAValueOrAFetch() {
    var machine = entry()
    let string = ObjectIdentifier(String.self)
    let outcome7 = machine.adopt(valueType: string, typeName: "String", gcTime: .seconds(10))
    #expect(outcome7)
    #expect(machine.typeName == "String" && machine.gcTime == .seconds(300))  // longest kept
    _ = machine.set("a", now: .zero)
    let outcome8 = machine.adopt(
      valueType: ObjectIdentifier(Int.self), typeName: "Int", gcTime: .zero)
    #expect(!outcome8)
    _ = machine.invalidate()
    let outcome9 = machine.adopt(
      valueType: ObjectIdentifier(Int.self), typeName: "Int", gcTime: .zero)
    #expect(outcome9)
  }
}
