import ReduxCore
import ReduxCoreTesting
import Synchronization
import Testing

/// A drain job yields the main actor while producers keep the queue full.
@Suite(.timeLimit(.minutes(1))) @MainActor
struct DrainFairnessTests {
  /// A middleware re-dispatches every action until another main-actor task has run, so the
  /// queue never empties: one unbounded drain job would run all `chainLength` actions before
  /// that task got the main actor.
  @Test func anotherMainActorTaskRunsWhileTheQueueKeepsRefilling() async {
    let chainLength = 200_000
    let probeRan = Atomic<Bool>(false)
    let refills = Atomic<Int>(0)
    let refill = Middle(id: "refill") { context in
      context.next()
      guard !probeRan.load(ordering: .relaxed) else { return }
      // NB: bounded, so that an unbounded drain fails the expectation instead of hanging.
      if refills.add(1, ordering: .relaxed).newValue < chainLength { context.dispatch(.inc) }
    }
    let store = CounterStore(initialState: TestState(), middlewares: [refill], reducers: [counter])
    store.dispatch(.inc)
    let probe = Task { @MainActor in
      probeRan.store(true, ordering: .relaxed)
      return store.value
    }
    let processedBeforeProbe = await probe.value
    await store.waitUntilActionsProcessed()
    #expect(processedBeforeProbe < chainLength)
    #expect(store.value == processedBeforeProbe + 1)
  }
}
