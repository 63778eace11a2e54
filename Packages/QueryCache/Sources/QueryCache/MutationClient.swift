import Logging
public import Observation

/// The state of a mutation, for a front end to show.
public struct MutationBox: Sendable {
  /// Whether the mutation is running.
  public internal(set) var isRunning = false
  /// The error of the last run, if it failed.
  public internal(set) var error: (any Error)?

  /// A box for a mutation that has not run.
  public init() {}
}

/// Runs write operations and lets them update the query cache: swift-query's `MutationClient`
/// without SwiftUI's `@Binding`, as an observable model.
///
/// ```swift
/// let rename = MutationClient(client: client)
/// await rename.asyncPerform { try await api.rename(id, to: name) } onCompleted: { client in
///   await client.invalidate(["user", id])
/// }
/// ```
@MainActor
@Observable
public final class MutationClient {
  /// The mutation's state.
  public private(set) var box = MutationBox()
  /// The client `onCompleted` receives.
  @ObservationIgnored public let client: QueryClient

  /// Creates a mutation client.
  ///
  /// - Parameter client: The query client whose cache the mutations update.
  public init(client: QueryClient = .shared) {
    self.client = client
  }

  /// Whether the mutation is running.
  public var isLoading: Bool { box.isRunning }

  /// Clears the error and the running state.
  public func reset() {
    box = MutationBox()
  }

  /// Runs `mutationFn`; on success awaits `onCompleted` (to invalidate queries).
  @discardableResult
  public func asyncPerform(
    _ mutationFn: @escaping @Sendable () async throws -> Void,
    onCompleted: (@Sendable (QueryClient) async -> Void)? = nil
  ) async -> Result<Void, any Error> {
    let result = await perform(mutationFn)
    if case .success = result { await onCompleted?(client) }
    return result
  }

  /// Runs `operation` and returns its value; on success calls `onCompleted` with it.
  @discardableResult
  public func asyncPerform<T: Sendable>(
    _ operation: @escaping @Sendable () async throws -> T,
    onCompleted: (@Sendable (T, QueryClient) -> Void)? = nil
  ) async -> Result<T, any Error> {
    let result = await perform(operation)
    if case .success(let value) = result { onCompleted?(value, client) }
    return result
  }

  /// Shows `optimisticValue` under `key` at once, runs `mutationFn`, and rolls the cache back to
  /// the previous value if it fails (TanStack Query's optimistic update).
  ///
  /// A fetch of `key` under way is cancelled first (its callers get a `CancellationError`):
  /// started before the mutation, its result would land after the optimistic value and wipe
  /// it, showing the change undone while it is being sent. TanStack Query asks the app to do
  /// this in `onMutate`; here it cannot be forgotten.
  @discardableResult
  public func asyncPerform<Value: Sendable>(
    optimistic key: QueryKey,
    _ optimisticValue: Value,
    _ mutationFn: @escaping @Sendable () async throws -> Void,
    onCompleted: (@Sendable (QueryClient) async -> Void)? = nil
  ) async -> Result<Void, any Error> {
    await client.cancelQueries(key, exact: true)
    let previous: Value?
    do {
      previous = try await client.setQueryData(key, optimisticValue)
    } catch {
      box.error = error
      return .failure(error)
    }
    let result = await perform(mutationFn)
    switch result {
    case .success:
      await onCompleted?(client)
    case .failure:
      if let previous {
        do {
          try await client.setQueryData(key, previous)
        } catch {
          // Another writer changed the key's value type meanwhile: its value stands.
          client.logger.error("rollback of \(key) after a failed mutation refused: \(error)")
        }
      } else {
        await client.invalidate(key, exact: true)
      }
    }
    return result
  }

  private func perform<T: Sendable>(
    _ operation: @escaping @Sendable () async throws -> T
  ) async -> Result<T, any Error> {
    box.isRunning = true
    box.error = nil
    defer { box.isRunning = false }
    do {
      return .success(try await Self.run(operation))
    } catch {
      box.error = error
      return .failure(error)
    }
  }

  @concurrent
  private static func run<T: Sendable>(_ operation: @Sendable () async throws -> T) async throws
    -> T
  {
    try await operation()
  }
}
