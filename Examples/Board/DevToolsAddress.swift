import ArgumentParser
import BoardCore
import DevTools
import Foundation
import Logging

#if DevToolsServer
  import DevToolsServer
#endif

/// `--devtools [ADDRESS]`: where the DevTools page listens. `HOST:PORT`, `PORT` or `HOST`;
/// loopback on a free port when the address is left out (the page's address is printed).
struct DevToolsAddress: Equatable {
  static let loopback = "127.0.0.1"

  var host = Self.loopback
  var port = 0

  /// - Throws: A `ValidationError` that says what an address looks like.
  init(_ text: String) throws {
    let invalid = ValidationError(
      "--devtools takes HOST:PORT, PORT or HOST, as 127.0.0.1:9090: \(text)")
    // NB: an IPv6 host is bracketed when a port follows: [::1]:9090.
    var host = Substring(text)
    var port: Substring?
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else { throw invalid }
      host = text[text.index(after: text.startIndex)..<close]
      let rest = text[text.index(after: close)...]
      if !rest.isEmpty {
        guard rest.hasPrefix(":") else { throw invalid }
        port = rest.dropFirst()
      }
    } else if text.allSatisfy(\.isNumber) {
      (host, port) = (Substring(Self.loopback), Substring(text))
    } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
      (host, port) = (text[..<colon], text[text.index(after: colon)...])
    }
    guard !host.isEmpty, !host.contains(where: \.isWhitespace) else { throw invalid }
    self.host = String(host)
    if let port {
      guard let number = Int(port), (0...65535).contains(number) else { throw invalid }
      self.port = number
    }
  }

  /// `--devtools` with nothing after it: the arguments with the default address put in, since
  /// an option's value cannot be optional in ArgumentParser.
  static func fillingIn(_ arguments: [String]) -> [String] {
    var filled: [String] = []
    for (index, argument) in arguments.enumerated() {
      filled.append(argument)
      let next = arguments.indices.contains(index + 1) ? arguments[index + 1] : nil
      if argument == "--devtools", next?.hasPrefix("-") ?? true {
        filled.append(Self.loopback)
      }
    }
    return filled
  }

  /// Serves the DevTools page here, with `token`; without one, a random one (made here off
  /// loopback, where the server requires one given; by the server on loopback).
  func serve(token: String?) throws -> BoardDevTools.Serve {
    #if DevToolsServer
      var configuration = DevToolsServer.Configuration(host: host, port: port, token: token)
      if token == nil, !configuration.isLoopback {
        configuration.token = UUID().uuidString.lowercased()
      }
      return { recorder, travel, logger in
        let server = try DevToolsServer(
          timeline: recorder, travel: travel, configuration: configuration, logger: logger)
        let (started, listening) = AsyncThrowingStream.makeStream(of: URL.self)
        // NB: the server runs as long as the board; its URL comes once it listens, and an
        // error (the port taken) ends the stream instead.
        Task {
          do {
            try await server.run { url in listening.yield(url) }
            listening.finish()
          } catch {
            listening.finish(throwing: error)
          }
        }
        for try await url in started { return url }
        throw CancellationError()  // NB: it stops before listening only when cancelled.
      }
    #else
      throw ValidationError(
        "--devtools: this board was built without the page; build it with the DevToolsServer "
          + "trait (swift run --traits DevToolsServer board -- --devtools). --record FILE "
          + "records the session without it")
    #endif
  }
}
