import BoardServerCore
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import PersistencePostgresTesting
import PostgresNIO
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `board-server` processes killed with SIGKILL while clients keep them committing writes: no
/// write a client saw acknowledged is lost, and the instance that stays converges on them.
@MainActor
@Suite(.enabled(if: TestServer.isAvailable, Comment(rawValue: TestServer.skipReason)), .serialized)
struct KillTests {
  @Test func anInstanceKilledMidWriteLosesNothingItAcknowledged() async throws {
    let url = try await TestServer.makeDatabase(prefix: "board")
    let survivor = try await ServerInstance(.postgres(url: url, instance: "survivor"))
    let columnID = try await survivor.app.test(.router) { client in
      try #require(
        try await client.send(.post, "/columns", json: #"{"name": "Todo"}"#, as: Column.self).body?
          .id)
    }
    var acknowledged: Set<String> = []
    var unanswered = 0
    let rounds = 3
    for round in 0..<rounds {
      let server = try await ServerProcess.start(databaseURL: url, instance: "killed-\(round)")
      let outcome = try await server.writeUntilKilled(columnID: columnID, afterAcknowledged: 25)
      acknowledged.formUnion(outcome.acknowledged)
      unanswered += outcome.unanswered
    }

    let stored = try await TestServer.admin(url) { connection in
      var ids: Set<String> = []
      for try await id in try await connection.query("SELECT id FROM cards", logger: quiet)
        .decode(String.self)
      {
        ids.insert(id)
      }
      return ids
    }
    #expect(acknowledged.count >= rounds * 25)
    // Nothing acknowledged was lost; what was in flight may or may not have committed.
    #expect(acknowledged.subtracting(stored).isEmpty)
    // The writers had requests under way when each kill came: the kills landed mid-write.
    #expect(unanswered >= rounds)
    await waitUntil("the survivor holds every stored card", watching: [survivor.service]) {
      Set(survivor.service.cards.map(\.id)) == stored
    }
    print(
      "kill: \(rounds) SIGKILLs, \(acknowledged.count) writes acknowledged, \(unanswered) in flight at the kills, \(acknowledged.subtracting(stored).count) lost"
    )
    try await survivor.service.shutdown()
  }
}

/// A `board-server` process of this package's build, on PostgreSQL.
@MainActor
final class ServerProcess {
  let process: Process
  let port: Int

  private init(process: Process, port: Int) {
    self.process = process
    self.port = port
  }

  /// Starts `board-server` beside the test bundle on a free port and waits until it listens.
  static func start(databaseURL: String, instance: String) async throws -> ServerProcess {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0])
      .deletingLastPathComponent().appendingPathComponent("board-server")
    try #require(
      FileManager.default.isExecutableFile(atPath: executable.path),
      "build board-server first: swift build --package-path Examples/BoardServer")
    let process = Process()
    process.executableURL = executable
    process.arguments = ["--port", "0", "--instance", instance]
    var environment = ProcessInfo.processInfo.environment
    environment["DATABASE_URL"] = databaseURL
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let reader = output.fileHandleForReading
    // NB: a blocking read, off the main actor; it ends at the announcement or at the end of
    // the output (the process exited).
    let port = await Task.detached { () -> Int? in
      var text = ""
      while true {
        let data = reader.availableData
        guard !data.isEmpty else { return nil }
        text += String(decoding: data, as: UTF8.self)
        if let line = text.split(separator: "\n").first(where: { $0.contains("listening on") }),
          let port = line.split(separator: ":").last.flatMap({ Int($0) })
        {
          return port
        }
      }
    }.value
    guard let port else {
      process.terminate()
      throw ServerProcessError.didNotStart(instance)
    }
    return ServerProcess(process: process, port: port)
  }

  /// Four clients create cards as fast as the server answers; once `count` are acknowledged
  /// the process is killed with SIGKILL. Returns the ids acknowledged (201) and the number of
  /// requests that got no answer.
  func writeUntilKilled(columnID: String, afterAcknowledged count: Int) async throws -> (
    acknowledged: Set<String>, unanswered: Int
  ) {
    let acknowledged = Acknowledged()
    let pid = process.processIdentifier
    let port = port
    let unanswered = try await withThrowingTaskGroup(of: Int.self) { group in
      for writer in 0..<4 {
        group.addTask {
          try await Self.write(
            as: writer, port: port, columnID: columnID,
            acknowledged: acknowledged
          ) { total in
            if total == count { kill(pid, SIGKILL) }
          }
        }
      }
      var unanswered = 0
      for try await count in group { unanswered += count }
      return unanswered
    }
    await exited()
    return (acknowledged.ids, unanswered)
  }

  /// Creates cards through one connection until a request gets no answer; returns 1 then.
  private nonisolated static func write(
    as writer: Int, port: Int, columnID: String, acknowledged: Acknowledged,
    then: @escaping @Sendable (_ total: Int) -> Void
  ) async throws -> Int {
    try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
      for step in 0... {
        let request = TestClient.Request(
          "/cards", method: .post, headers: [.contentType: "application/json"],
          body: ByteBuffer(
            string: #"{"columnID": "\#(columnID)", "title": "w\#(writer)-\#(step)"}"#))
        let response: TestClient.Response
        do {
          response = try await client.execute(request)
        } catch {
          return 1  // killed with this request under way
        }
        try #require(response.status == .created)
        let card = try JSONDecoder().decode(
          Created.self, from: Data(try #require(response.body).readableBytesView))
        then(acknowledged.insert(card.id))
      }
      return 0
    }
  }

  /// Waits for the process to end.
  private func exited() async {
    let process = process
    await Task.detached { process.waitUntilExit() }.value
  }
}

/// The ids of the writes acknowledged so far, shared by the writers.
final class Acknowledged: Sendable {
  private let state = Mutex(Set<String>())

  var ids: Set<String> { state.withLock { $0 } }

  /// Adds `id`; returns how many there are now.
  func insert(_ id: String) -> Int {
    state.withLock { ids in
      ids.insert(id)
      return ids.count
    }
  }
}

/// The id of what a `POST` created.
struct Created: Decodable {
  let id: String
}

enum ServerProcessError: Error {
  case didNotStart(String)
}
