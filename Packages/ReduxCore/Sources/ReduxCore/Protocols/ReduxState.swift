public import Observation

/// The mutable, observable state a ``Store`` owns.
///
/// Only reducers receive the mutable state. Everything else (middleware tasks, resolvers,
/// completions, readers of the store) sees the ``ReadOnly`` projection.
///
/// By default the projection is a ``ReadOnlyView``, which reads every property and writes
/// none, so a state needs nothing but its properties:
///
/// ```swift
/// @MainActor @Observable
/// final class CounterState: ReduxState {
///   var count = 0
/// }
/// store.count            // 0, through the store's read-only view
/// ```
///
/// A state that shows readers less than it holds (or computes what they see) declares its own
/// projection instead:
///
/// ```swift
/// @MainActor @Observable
/// final class CounterState: ReduxState {
///   var count = 0
///   private var history: [Int] = []
///   // Computed: the store reads it once. A stored projection would form a retain cycle.
///   var readOnly: ReadOnly { ReadOnly(self) }
///
///   @MainActor @Observable
///   final class ReadOnly: ReduxReadOnlyState {
///     private let state: CounterState
///     init(_ state: CounterState) { self.state = state }
///     var count: Int { state.count }
///   }
/// }
/// ```
///
/// A state no view observes (a server's, a command-line tool's) may leave `@Observable` out
/// and conform to `Observable` as a marker: each mutation then skips Observation's registrar
/// (about 700 instructions a mutation on Swift 6.3), and ``Store/changes(of:)`` still works,
/// since it compares the selected value after each batch. Observation-based tracking
/// (SwiftUI, `withObservationTracking`, ReduxCoreTesting's `waitUntil(_:)`) sees no change of
/// such a state.
@MainActor
public protocol ReduxState: AnyObject, Observable, Sendable {
  /// The read-only projection handed to everything but reducers; by default a
  /// ``ReadOnlyView`` of every property.
  associatedtype ReadOnly: ReduxReadOnlyState = ReadOnlyView<Self> where ReadOnly.State == Self

  /// The read-only projection of this state. The store reads it once, at initialisation.
  var readOnly: ReadOnly { get }
}

/// A read-only projection of a ``ReduxState``.
///
/// The projection is a live view: reading it later shows later mutations. Copy the values you
/// need if you want a snapshot.
@MainActor
public protocol ReduxReadOnlyState: AnyObject, Observable, Sendable {
  /// The state this projection reads.
  associatedtype State

  /// Creates the projection of `state`.
  init(_ state: State)
}

extension ReduxState where ReadOnly == ReadOnlyView<Self> {
  /// A read-only view of every property.
  public var readOnly: ReadOnlyView<Self> { ReadOnlyView(self) }
}
