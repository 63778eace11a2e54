import CompressNIO
import DevTools
import DevToolsServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Observation
import ReduxCore
import Testing

/// The page's API over a recorded store: what it lists, what it diffs, what its controls do to
/// the live store, and who it refuses.
///
/// NB: requests carry the token as the page's cookie, as the page's own requests do.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct DevToolsServerTests {
  @Observable
  final class CounterState: UndoableState {
    var count = 0
    var undoHistory = UndoHistory<Int>(capacity: 1)
    var undoSnapshot: Int { count }
    func restoreUndoSnapshot(_ snapshot: Int) { count = snapshot }
  }

  enum CounterAction: ReduxAction, Codable {
    case add(Int)
    var id: String { "add" }
  }

  let adding = AnyReducer<CounterState, CounterAction>(id: "add") { context in
    if case .add(let amount) = context.action { context.state.count += amount }
  }

  /// What the page's own requests carry: the cookie its first load set.
  let pageHeaders: HTTPFields = [.cookie: "theme=dark; reduxkit-devtools=t0ken"]

  /// A store that added 1, 2 and 3, recorded, with its time travel and server.
  func recorded(token: String? = "t0ken") async throws -> (
    Store<CounterState, CounterAction>, DevToolsServer
  ) {
    let recorder = DevToolsRecorder<CounterState, CounterAction, Int>(app: "counter") {
      $0.undoSnapshot
    }
    let store = Store(initialState: CounterState(), reducers: [adding], inspector: recorder)
    recorder.start(from: store)
    for amount in 1...3 { await store.dispatchWithResult(.add(amount)) }
    let adding = adding
    let travel = DevToolsTimeTravel(store: store, recorder: recorder) { start in
      let state = CounterState()
      state.count = start
      return Store(initialState: state, reducers: [adding])
    }
    let server = try DevToolsServer(
      timeline: recorder, travel: travel, configuration: .init(token: token))
    return (store, server)
  }

  @Test func theTimelineListsEveryActionAndItsDiff() async throws {
    let (_, server) = try await recorded()
    let app = Application(router: server.router())
    try await app.test(.router) { client in
      let page = try await client.execute(uri: "/", method: .get, headers: pageHeaders)
      #expect(page.status == .ok)
      #expect(String(buffer: page.body).contains("ReduxKit DevTools"))

      let records = try await client.execute(
        uri: "/api/records", method: .get, headers: pageHeaders)
      let timeline = try JSONDecoder().decode(
        Timeline.self, from: Data(records.body.readableBytesView))
      #expect(timeline.app == "counter")
      #expect(timeline.records.map(\.index) == [0, 1, 2, 3])
      #expect(!timeline.more)
      // Rows without states: a state comes for the one record opened.
      #expect(timeline.records.allSatisfy { $0.state == nil })
      #expect(timeline.travel.position == nil)
      let record = try await client.execute(
        uri: "/api/record?index=3", method: .get, headers: pageHeaders)
      #expect(
        try JSONDecoder().decode(DevToolsRecord.self, from: Data(record.body.readableBytesView))
          .state == .number(6))
      #expect(
        try await client.execute(uri: "/api/record?index=9", method: .get, headers: pageHeaders)
          .status == .notFound)

      // A page at a time: after a record, at most `limit`, and whether more follow.
      let paged = try await client.execute(
        uri: "/api/records?after=1&limit=1", method: .get, headers: pageHeaders)
      let second = try JSONDecoder().decode(Timeline.self, from: Data(paged.body.readableBytesView))
      #expect(second.records.map(\.index) == [2])
      #expect(second.more)
      let last = try await client.execute(
        uri: "/api/records?after=2&limit=5", method: .get, headers: pageHeaders)
      let third = try JSONDecoder().decode(Timeline.self, from: Data(last.body.readableBytesView))
      #expect(third.records.map(\.index) == [3])
      #expect(!third.more)

      let diff = try await client.execute(
        uri: "/api/diff?index=2", method: .get, headers: pageHeaders)
      let changes = try JSONDecoder().decode(
        [StateDiff.Change].self, from: Data(diff.body.readableBytesView))
      #expect(changes.map(\.description) == ["~ .: 1 → 3"])

      let export = try await client.execute(uri: "/api/export", method: .get, headers: pageHeaders)
      let session = try DevToolsSession(data: Data(export.body.readableBytesView))
      #expect(session.records.map(\.index) == [0, 1, 2, 3])
    }
  }

  @Test func answersAreGzippedForABrowserThatAcceptsIt() async throws {
    let (store, server) = try await recorded()
    // NB: enough actions for a page of rows worth compressing.
    for amount in 4...60 { await store.dispatchWithResult(.add(amount)) }
    let app = Application(router: server.router())
    try await app.test(.router) { client in
      var accepting = pageHeaders
      accepting[.acceptEncoding] = "br;q=1.0, gzip;q=0.8, *;q=0.1"
      for uri in ["/", "/api/records", "/api/export"] {
        let plain = try await client.execute(uri: uri, method: .get, headers: pageHeaders)
        #expect(plain.headers[.contentEncoding] == nil, "\(uri)")
        let gzipped = try await client.execute(uri: uri, method: .get, headers: accepting)
        #expect(gzipped.headers[.contentEncoding] == "gzip", "\(uri)")
        #expect(gzipped.headers[.vary] == "Accept-Encoding", "\(uri)")
        #expect(gzipped.body.readableBytes * 2 < plain.body.readableBytes, "\(uri)")
        var body = gzipped.body
        let unzipped = try body.decompress(with: .gzip())
        // NB: compared as JSON values, line by line: two encodings of one value may order an
        // object's keys differently.
        let (unzippedLines, plainLines) = (jsonLines(unzipped), jsonLines(plain.body))
        #expect(unzippedLines == plainLines, "\(uri)")
      }
      // A small answer goes as it is, and so does one to gzip refused with q=0.
      let small = try await client.execute(
        uri: "/api/record?index=1", method: .get, headers: accepting)
      #expect(small.headers[.contentEncoding] == nil)
      var refusing = pageHeaders
      refusing[.acceptEncoding] = "gzip;q=0, identity"
      let refused = try await client.execute(uri: "/api/records", method: .get, headers: refusing)
      #expect(refused.headers[.contentEncoding] == nil)
    }
  }

  /// Each line of `buffer` as a JSON value (the page's HTML, which is no JSON, as its text).
  nonisolated private func jsonLines(_ buffer: ByteBuffer) -> [NSObject] {
    String(buffer: buffer).split(separator: "\n").map { line in
      do {
        let value = try JSONSerialization.jsonObject(
          with: Data(line.utf8), options: [.fragmentsAllowed])
        return value as? NSObject ?? NSString(string: String(line))
      } catch {
        return NSString(string: String(line))
      }
    }
  }

  @Test func anImportedSessionIsShownAndDiffedAndAMalformedOneIsRefusedWithItsLine()
    async throws
  {
    let (_, server) = try await recorded()
    let app = Application(router: server.router())
    let header = #"{"app":"old counter","format":"reduxkit-devtools","version":1}"#
    let records = [
      #"{"index":0,"kind":"action","name":"@start","outcome":"event","source":"recorder","time":0,"state":10}"#,
      #"{"index":1,"kind":"action","name":"add","outcome":"reduced","source":"caller","time":1,"state":15}"#,
    ]
    try await app.test(.router) { client in
      let imported = try await client.execute(
        uri: "/api/import?name=old.jsonl", method: .post, headers: pageHeaders,
        body: ByteBuffer(string: ([header] + records).joined(separator: "\n") + "\n"))
      #expect(imported.status == .ok)
      let timeline = try JSONDecoder().decode(
        Timeline.self, from: Data(imported.body.readableBytesView))
      #expect(timeline.app == "old counter")
      #expect(timeline.records.map(\.index) == [0, 1])
      let id = try #require(timeline.imported)

      let diff = try await client.execute(
        uri: "/api/diff?index=1&imported=\(id)", method: .get, headers: pageHeaders)
      let changes = try JSONDecoder().decode(
        [StateDiff.Change].self, from: Data(diff.body.readableBytesView))
      #expect(changes.map(\.description) == ["~ .: 10 → 15"])

      // Another page imports another session: each page reads its own.
      let other = try await client.execute(
        uri: "/api/import?name=other.jsonl", method: .post, headers: pageHeaders,
        body: ByteBuffer(string: ([header] + records.prefix(1)).joined(separator: "\n") + "\n"))
      let otherID = try #require(
        try JSONDecoder().decode(Timeline.self, from: Data(other.body.readableBytesView))
          .imported)
      #expect(otherID != id)
      for (session, count) in [(id, 2), (otherID, 1)] {
        let read = try await client.execute(
          uri: "/api/records?imported=\(session)", method: .get, headers: pageHeaders)
        #expect(
          try JSONDecoder().decode(Timeline.self, from: Data(read.body.readableBytesView))
            .records.count == count)
      }
      #expect(
        try await client.execute(
          uri: "/api/records?imported=99", method: .get, headers: pageHeaders
        ).status == .gone)
      // The live recording is still there, and its own diff.
      let live = try await client.execute(
        uri: "/api/diff?index=1", method: .get, headers: pageHeaders)
      let liveChanges = try JSONDecoder().decode(
        [StateDiff.Change].self, from: Data(live.body.readableBytesView))
      #expect(liveChanges.map(\.description) == ["~ .: 0 → 1"])

      let malformed = try await client.execute(
        uri: "/api/import?name=bad.jsonl", method: .post, headers: pageHeaders,
        body: ByteBuffer(string: header + "\n" + records[0] + "\nnot json\n"))
      #expect(malformed.status == .badRequest)
      #expect(String(buffer: malformed.body).contains("bad.jsonl: line 3 is not a record"))
    }
  }

  @Test func theControlsTravelTheLiveStore() async throws {
    let (store, server) = try await recorded()
    let app = Application(router: server.router())
    try await app.test(.router) { client in
      let jumped = try await client.execute(
        uri: "/api/jump?index=1", method: .post, headers: pageHeaders)
      #expect(jumped.status == .ok)
      #expect(String(buffer: jumped.body).contains(#""position":1"#))
      #expect(await MainActor.run { store.count } == 1)
      #expect(await MainActor.run { store.isPaused })
      _ = try await client.execute(uri: "/api/step?by=1", method: .post, headers: pageHeaders)
      #expect(await MainActor.run { store.count } == 3)
      _ = try await client.execute(uri: "/api/skip?index=2", method: .post, headers: pageHeaders)
      #expect(await MainActor.run { store.count } == 4)  // 1 + 3, without the 2
      let resumed = try await client.execute(
        uri: "/api/resume", method: .post, headers: pageHeaders)
      #expect(String(buffer: resumed.body).contains(#""skipped":[2]"#))
      #expect(await MainActor.run { !store.isPaused })
      #expect(await MainActor.run { store.count } == 4)
      let refused = try await client.execute(
        uri: "/api/jump?index=99", method: .post, headers: pageHeaders)
      #expect(refused.status == .conflict)
      #expect(String(buffer: refused.body).contains("#99"))
    }
  }

  @Test func badRequestsAndMissingTokensAreRefused() async throws {
    let (_, server) = try await recorded(token: "t0ken")
    let app = Application(router: server.router())
    try await app.test(.router) { client throws in
      #expect(try await client.execute(uri: "/api/records", method: .get).status == .unauthorized)
      #expect(
        try await client.execute(uri: "/api/records?token=wrong", method: .get).status
          == .unauthorized)
      #expect(
        try await client.execute(
          uri: "/api/records", method: .get, headers: [.authorization: "Bearer t0ken"]
        ).status == .ok)
      // A bearer or nothing: the bare token, or another scheme, is refused.
      for authorization in ["t0ken", "Basic t0ken", "Bearer t0ke", "Bearer t0ken0"] {
        #expect(
          try await client.execute(
            uri: "/api/records", method: .get, headers: [.authorization: authorization]
          ).status == .unauthorized, "\(authorization)")
      }
      #expect(
        try await client.execute(uri: "/api/jump?index=two&token=t0ken", method: .post).status
          == .badRequest)
      #expect(
        try await client.execute(uri: "/api/diff?index=42&token=t0ken", method: .get).status
          == .notFound)
    }
    let recorder = DevToolsRecorder<CounterState, CounterAction, Int>(app: "counter") {
      $0.undoSnapshot
    }
    // On loopback too: a random token, which the printed address holds.
    let random = try DevToolsServer(timeline: recorder)
    #expect(random.token.count == 32 && random.token.allSatisfy(\.isHexDigit))
    #expect(try DevToolsServer(timeline: recorder).token != random.token)
    try await Application(router: random.router()).test(.router) { client throws in
      #expect(try await client.execute(uri: "/", method: .get).status == .unauthorized)
      #expect(
        try await client.execute(uri: "/api/records?token=\(random.token)", method: .get).status
          == .ok)
    }
    #expect(throws: DevToolsServerError.tokenRequired(host: "0.0.0.0")) {
      try DevToolsServer(timeline: recorder, configuration: .init(host: "0.0.0.0"))
    }
  }
}

extension DevToolsServerTests {
  /// Only the page the server served drives the app: the page's first load (with the token in
  /// its address) sets the cookie its later requests carry; a browser's request from another
  /// site, or a command naming another origin, is refused even with the token; no page may
  /// frame it. (A request addressed to another host is in `Scripts/devtools-browser.py`.)
  @Test func onlyThePageItselfDrivesTheApp() async throws {
    let (store, server) = try await recorded()
    let app = Application(router: server.router())
    try await app.test(.router) { client in
      let opened = try await client.execute(uri: "/?token=t0ken", method: .get)
      #expect(opened.status == .ok)
      let cookie = try #require(opened.headers[.setCookie])
      #expect(cookie.hasPrefix("reduxkit-devtools=t0ken;"))
      #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
      #expect(opened.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
      #expect(opened.headers[.contentSecurityPolicy] == "frame-ancestors 'none'")
      #expect(opened.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")

      // The page's own command: its origin, its cookie. (The test client addresses every
      // request to `localhost`; the browser test sends another `Host`.)
      var own = pageHeaders
      own[.origin] = "http://localhost"
      own[HTTPField.Name("Sec-Fetch-Site")!] = "same-origin"
      #expect(
        try await client.execute(uri: "/api/jump?index=1", method: .post, headers: own).status
          == .ok)
      #expect(await MainActor.run { store.count } == 1)

      // Another origin, even one that learned the token, and a page on another port of the
      // same host (the same site), cannot command it.
      for origin in ["https://evil.example", "http://127.0.0.1:8000", "null"] {
        for command in ["/api/skip?index=1", "/api/resume", "/api/jump?index=3", "/api/import"] {
          var headers = own
          headers[.origin] = origin
          headers[HTTPField.Name("Sec-Fetch-Site")!] = "cross-site"
          let refused = try await client.execute(
            uri: command + (command.contains("?") ? "&" : "?") + "token=t0ken", method: .post,
            headers: headers)
          #expect(refused.status == .forbidden, "\(origin) \(command)")
          headers[HTTPField.Name("Sec-Fetch-Site")!] = nil
          #expect(
            try await client.execute(uri: command, method: .post, headers: headers).status
              == .forbidden, "\(origin) \(command), no Sec-Fetch-Site")
        }
      }
      #expect(await MainActor.run { store.count } == 1)
      #expect(await MainActor.run { store.isPaused })

      // Nor read the records from another site (a script or a fetch that carries the cookie).
      for site in ["cross-site", "same-site"] {
        var headers = own
        headers[HTTPField.Name("Sec-Fetch-Site")!] = site
        headers[.origin] = nil
        #expect(
          try await client.execute(uri: "/api/records", method: .get, headers: headers).status
            == .forbidden, "\(site)")
      }
      // A link from another site opens the page (a navigation), which holds no data itself.
      var link = pageHeaders
      link[HTTPField.Name("Sec-Fetch-Site")!] = "cross-site"
      link[HTTPField.Name("Sec-Fetch-Mode")!] = "navigate"
      #expect(try await client.execute(uri: "/", method: .get, headers: link).status == .ok)
      #expect(
        try await client.execute(uri: "/api/records", method: .get, headers: link).status
          == .forbidden)

      #expect(
        try await client.execute(uri: "/api/resume", method: .post, headers: own).status == .ok)
      #expect(await MainActor.run { store.count } == 6)
    }
  }
}

struct Timeline: Decodable {
  struct Travel: Decodable {
    let available: Bool
    let position: Int?
    let skipped: [Int]
  }

  let app: String
  let records: [DevToolsRecord]
  let more: Bool
  let travel: Travel
  let imported: Int?
}
