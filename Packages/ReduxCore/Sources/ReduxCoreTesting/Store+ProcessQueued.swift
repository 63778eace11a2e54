public import ReduxCore

extension Store {
  /// Suspends until every action admitted so far has run through the pipeline, including
  /// actions dispatched while they ran.
  ///
  /// Middleware tasks may still be running; use ``waitUntilIdle()`` to wait for them too.
  ///
  /// ```swift
  /// store.dispatch(.increment)
  /// await store.waitUntilActionsProcessed()
  /// #expect(store.count == 1)
  /// ```
  public func waitUntilActionsProcessed() async {
    await waitForQueueIdle()
  }

  /// Suspends until the queue is empty and no middleware task is running, repeating while
  /// tasks dispatch more actions.
  ///
  /// A task that waits for something outside the store (a clock, a network) keeps this
  /// suspended: advance that first.
  public func waitUntilIdle() async {
    repeat {
      await waitForQueueIdle()
      await tasks.waitUntilIdle()
      await waitForQueueIdle()
    } while tasks.runningTaskCount > 0
  }
}
