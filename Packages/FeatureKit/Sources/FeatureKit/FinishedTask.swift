extension Task where Success == Void, Failure == Never {
  /// The task `send` returns when an action started nothing: already finished and shared, so
  /// an action without a task allocates and schedules nothing.
  static var finished: Self { finishedTask }
}

private let finishedTask = Task<Void, Never> {}
