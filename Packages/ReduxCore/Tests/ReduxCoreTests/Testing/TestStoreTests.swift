import ReduxCore
import ReduxCoreTesting
import Testing

/// ReduxCoreTesting's exhaustive TestStore: every action the pipeline dispatches is received,
/// in order, or the test fails where it should.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct TestStoreTests {
  /// `.run` starts a task that waits for the gate, then dispatches `.add(2)`; a resolver turns
  /// a `.fail` into `.note("recovered")`.
  let gate = Gate()

  func makeStore() -> ReduxCoreTesting.TestStore<TestState, TestAction> {
    let gate = gate
    let loader = Middle(id: "loader") { context in
      switch context.action {
      case .run:
        context.dispatch(.inc)
        context.task { _ in
          try await gate.wait()
          context.dispatch(.add(2))
        }
      case .fail:
        throw TestError()
      default:
        break
      }
      context.next()
    }
    let recovery = Resolve(id: "recovery") { context in
      context.dispatch(.note("recovered"))
    }
    return TestStore(
      initialState: TestState(), middlewares: [loader], resolvers: [recovery],
      reducers: [counter])
  }

  @Test func everyDispatchedActionIsReceivedInOrderWithTheStateAfterIt() async {
    let store = makeStore()
    // NB: the state now: the `.inc` the middleware dispatched ran in the same drain.
    await store.send(.run) { #expect($0.value == 1) }
    await store.receive(.inc) { #expect($0.value == 1) }
    gate.open()
    await store.receive(.add(2)) { #expect($0.value == 3) }
    await store.send(.fail)
    await store.receive(.note("recovered")) { #expect($0.log.last == "recovered") }
    await store.finish()
  }

  @Test func aDifferentActionThanExpectedFails() async {
    let store = makeStore()
    await store.send(.run)
    await withKnownIssue {
      await store.receive(.add(1))
    } matching: { issue in
      issue.comments.contains { $0.rawValue == "Received inc, expected add(1)" }
    }
    gate.open()
    await store.receive(.add(2))
    await store.finish()
  }

  @Test func receivingWhenNothingMoreCanComeFailsAtOnce() async {
    let store = makeStore()
    await store.send(.inc)
    await withKnownIssue {
      await store.receive(.inc)
    } matching: { issue in
      issue.comments.contains {
        $0.rawValue == "Expected to receive inc, but the store is idle and dispatched nothing more"
      }
    }
  }

  @Test func sendingWhileDispatchedActionsWaitFails() async {
    let store = makeStore()
    await store.send(.run)
    await withKnownIssue {
      await store.send(.inc)
    } matching: { issue in
      issue.comments.contains {
        $0.rawValue == "Sent inc while 1 dispatched action(s) wait to be received: inc"
      }
    }
    gate.open()
    await store.receive(.add(2))
    await store.finish()
  }

  @Test func finishingWithActionsNotReceivedFails() async {
    let store = makeStore()
    await store.send(.run)
    gate.open()
    await withKnownIssue {
      await store.finish()
    } matching: { issue in
      issue.comments.contains { $0.rawValue == "2 dispatched action(s) not received: inc, add(2)" }
    }
  }

  @Test func aTestEndingWithUnreceivedActionsOrRunningTasksFails() async {
    await withKnownIssue {
      var store: ReduxCoreTesting.TestStore<TestState, TestAction>? = makeStore()
      await store?.send(.run)  // dispatches .inc and leaves a task waiting for the gate
      store = nil
    } matching: { issue in
      issue.comments.contains {
        $0.rawValue.hasPrefix("The test ended with 1 dispatched action(s) not received: inc")
          || $0.rawValue.hasPrefix("The test ended with 1 task(s) still running")
      }
    }
  }
}
