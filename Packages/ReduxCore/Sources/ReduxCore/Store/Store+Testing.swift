extension Store {
  /// Suspends until every admitted action has been processed, including actions dispatched
  /// while processing. Backs `ReduxCoreTesting`'s `waitUntilActionsProcessed()`.
  package func waitForQueueIdle() async {
    await worker.dispatcher.waitForIdle()
  }
}
