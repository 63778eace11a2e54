/// What can identify a task on a ``TaskManager``: any hashable, sendable value.
///
/// ```swift
/// enum Tasks: Hashable, Sendable { case search, autosave }
/// tasks.run(id: Tasks.search) { … }
/// ```
public typealias TaskID = Hashable & Sendable
