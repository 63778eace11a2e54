public import PostgresNIO

/// One step of the app's schema, run once per database, in order, each in a transaction.
///
/// ```swift
/// PostgresMigration("v1") { connection in try await cards.create(on: connection) }
/// ```
public struct PostgresMigration: Sendable {
  /// The step's identifier, recorded in the database once run.
  public let identifier: String
  let migrate: @Sendable (PostgresConnection) async throws -> Void

  /// Creates a step.
  ///
  /// - Parameters:
  ///   - identifier: Recorded once the step has run; never rename a step that shipped.
  ///   - migrate: Changes the schema through the step's connection, inside its transaction.
  public init(
    _ identifier: String, migrate: @escaping @Sendable (PostgresConnection) async throws -> Void
  ) {
    self.identifier = identifier
    self.migrate = migrate
  }
}
