import Foundation
import HTTPTypes
public import Hummingbird
import PersistenceSync

/// The board's HTTP JSON API. Every card and column it shows carries its `tag`, the `ETag` a
/// write names.
///
/// - `GET /columns`, `GET /cards` (`ETag`; `If-None-Match` → 304), `GET /cards/:id` (`ETag`)
/// - `POST /columns {"id"?, "name"}`, `POST /cards {"id"?, "columnID", "title", "notes"?,
///   "tags"?, "due"?}` → 201; an `id` chosen by the client that exists already → 409
/// - `PUT /cards/:id {"title"?, "columnID"?, "notes"?, "tags"?, "due"?}`, `DELETE /cards/:id`,
///   `PUT /columns/:id {"name"}`, `DELETE /columns/:id` (409 while it holds cards), each with
///   the `If-Match` tag it was made against: 428 without it, 412 when it is not the current
///   one or another instance's change committed first (the body then holds the current one)
/// - `GET /changes?after=TAG`: the board's tag once it differs from `TAG` (a long poll of up to
///   20 s), for a client to refetch when the board changed here or on another instance
/// - `GET /health`: this instance's persistence and change feed.
/// - `POST /sync/push {"replica", "changes": [SyncChange]}` → `[SyncOutcome]`, and
///   `GET /sync/pull?after=CURSOR&limit=N` → `SyncPage`: the board as a `SyncRemote` keeps it
///   (PersistenceSync's contract), for an offline-first client; 503 while a change waits to be
///   written (try again).
///
/// A write records the client that made it, as an `X-Board-Client` header names it (1 to 64
/// bytes, no control character; else 400), in the entity's `updatedBy`.
///
/// A body is JSON (`Content-Type: application/json`, else 415), its texts within the limits
/// ``BoardService`` sets. `If-Match: *` names whatever the entity's current tag is (412 when
/// there is none). With a `token`, every request but `GET /health` must carry it
/// (`Authorization: Bearer <token>`, else 401).
public func makeBoardRouter(_ service: BoardService, token: String? = nil)
  -> Router<BasicRequestContext>
{
  let router = Router()
  if let token { router.add(middleware: BearerToken(token)) }
  router.get("health") { _, _ in try await json(service.health) }
  router.get("changes") { request, _ in
    let after = request.uri.queryParameters.get("after")
    return try await json(BoardTag(tag: service.changes(after: after)))
  }
  router.get("columns") { request, _ in
    try list(await service.columns.map(ColumnResource.init), request: request)
  }
  router.post("columns") { request, context in
    let body = try await decodeJSON(NewColumn.self, from: request, context: context)
    switch await service.createColumn(body, by: try client(request)) {
    case .success(let column):
      return try json(ColumnResource(column: column), status: .created, tag: column.entityTag)
    case .failure(let error): throw httpError(error)
    }
  }
  router.put("columns/:id") { request, context in
    let id = try context.parameters.require("id")
    let tag = try await ifMatch(request) { await service.column(id)?.entityTag }
    let body = try await decodeJSON(ColumnChange.self, from: request, context: context)
    switch await service.renameColumn(
      id: id, ifMatch: tag, to: body.name, by: try client(request))
    {
    case .success(let column):
      return try json(ColumnResource(column: column), tag: column.entityTag)
    case .failure(let error): return try await failure(error, column: id, service: service)
    }
  }
  router.delete("columns/:id") { request, context in
    let id = try context.parameters.require("id")
    let tag = try await ifMatch(request) { await service.column(id)?.entityTag }
    switch await service.deleteColumn(id: id, ifMatch: tag) {
    case .success: return Response(status: .noContent)
    case .failure(let error): return try await failure(error, column: id, service: service)
    }
  }
  router.get("cards") { request, _ in
    try list(await service.cards.map(CardResource.init), request: request)
  }
  router.get("cards/:id") { _, context in
    let id = try context.parameters.require("id")
    guard let card = await service.card(id) else { throw HTTPError(.notFound) }
    return try json(CardResource(card: card), tag: card.entityTag)
  }
  router.post("cards") { request, context in
    let body = try await decodeJSON(NewCard.self, from: request, context: context)
    switch await service.createCard(body, by: try client(request)) {
    case .success(let card):
      return try json(CardResource(card: card), status: .created, tag: card.entityTag)
    case .failure(let error): throw httpError(error)
    }
  }
  router.put("cards/:id") { request, context in
    let id = try context.parameters.require("id")
    let tag = try await ifMatch(request) { await service.card(id)?.entityTag }
    let body = try await decodeJSON(CardChange.self, from: request, context: context)
    switch await service.updateCard(id: id, ifMatch: tag, body, by: try client(request)) {
    case .success(let card): return try json(CardResource(card: card), tag: card.entityTag)
    case .failure(let error): return try await failure(error, card: id, service: service)
    }
  }
  router.delete("cards/:id") { request, context in
    let id = try context.parameters.require("id")
    let tag = try await ifMatch(request) { await service.card(id)?.entityTag }
    switch await service.deleteCard(id: id, ifMatch: tag) {
    case .success: return Response(status: .noContent)
    case .failure(let error): return try await failure(error, card: id, service: service)
    }
  }
  router.post("sync/push") { request, context in
    let body = try await decodeJSON(SyncPush.self, from: request, context: context)
    switch await service.syncPush(body.changes, from: body.replica) {
    case .success(let outcomes): return try json(outcomes)
    case .failure(let error): throw httpError(error)
    }
  }
  router.get("sync/pull") { request, _ in
    let after = request.uri.queryParameters.get("after")
    let limit = request.uri.queryParameters.get("limit").flatMap { Int($0) } ?? 500
    switch await service.syncPull(after: after, limit: limit) {
    case .success(let page): return try json(page)
    case .failure(let error): throw httpError(error)
    }
  }
  return router
}

/// What `GET /changes` answers.
struct BoardTag: Codable {
  let tag: String
}

/// The tag an `If-Match` header names: a strong one (a weak tag never matches a write), or for
/// `*` the entity's current one, which `current` reads (RFC 9110: `*` matches any current
/// representation, and fails when there is none).
private func ifMatch(_ request: Request, current: () async -> String?) async throws -> String {
  guard let value = request.headers[.ifMatch] else {
    throw HTTPError(.preconditionRequired, message: "a write needs If-Match: the card's ETag")
  }
  if value.trimmingCharacters(in: .whitespaces) == "*" {
    guard let tag = await current() else {
      throw HTTPError(.preconditionFailed, message: "If-Match: * and there is no such entity")
    }
    return tag
  }
  guard value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 else {
    throw HTTPError(.badRequest, message: "If-Match is not a strong entity tag: \(value)")
  }
  return value
}

/// The client a request names (`X-Board-Client`), if it names one.
private func client(_ request: Request) throws -> String? {
  guard let name = request.headers[boardClient] else { return nil }
  guard (1...64).contains(name.utf8.count),
    !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
  else {
    throw HTTPError(
      .badRequest, message: "X-Board-Client names a client in 1 to 64 bytes, no control character")
  }
  return name
}

/// The header a client names itself in.
let boardClient = HTTPField.Name("X-Board-Client")!

/// A request's JSON body as `Body`; 415 unless it says it is JSON.
private func decodeJSON<Body: Decodable & Sendable>(
  _: Body.Type, from request: Request, context: BasicRequestContext
) async throws -> Body {
  let mediaType = request.headers[.contentType]?.split(separator: ";").first
  guard mediaType?.trimmingCharacters(in: .whitespaces).lowercased() == "application/json" else {
    throw HTTPError(
      .unsupportedMediaType, message: "a body is JSON: Content-Type: application/json")
  }
  return try await request.decode(as: Body.self, context: context)
}

/// A list with a weak `ETag` of its JSON: the same entities with the same fields, in the same
/// order, give the same tag on every instance.
private func list<Entity: Encodable>(_ entities: [Entity], request: Request) throws -> Response {
  let data = try encoder.encode(entities)
  let tag = "W/\"\(fnv1a(data))\""
  if request.headers[.ifNoneMatch] == tag {
    return Response(status: .notModified, headers: [.eTag: tag])
  }
  return Response(
    status: .ok, headers: [.contentType: "application/json", .eTag: tag],
    body: .init(byteBuffer: ByteBuffer(bytes: data)))
}

/// A refused write to a card: 412 with the current card (when there is one), or the error's
/// status.
private func failure(_ error: BoardError, card id: String, service: BoardService) async throws
  -> Response
{
  guard case .preconditionFailed = error.refusal else { throw httpError(error) }
  guard let current = await service.card(id) else {
    return try json(Problem(error: "the card was deleted"), status: .preconditionFailed)
  }
  return try json(
    CardResource(card: current), status: .preconditionFailed, tag: current.entityTag)
}

/// A refused write to a column: 412 with the current column, or the error's status.
private func failure(_ error: BoardError, column id: String, service: BoardService) async throws
  -> Response
{
  guard case .preconditionFailed = error.refusal else { throw httpError(error) }
  guard let current = await service.columns.first(where: { $0.id == id }) else {
    return try json(Problem(error: "the column was deleted"), status: .preconditionFailed)
  }
  return try json(
    ColumnResource(column: current), status: .preconditionFailed, tag: current.entityTag)
}

extension BoardError {
  /// A stale write or a conflict are both "not at the current version" to a client.
  fileprivate var refusal: BoardError {
    if case .conflict = self { .preconditionFailed } else { self }
  }
}

private func httpError(_ error: BoardError) -> HTTPError {
  switch error {
  case .notFound: HTTPError(.notFound)
  case .preconditionFailed, .conflict: HTTPError(.preconditionFailed)
  case .invalid(let message): HTTPError(.badRequest, message: message)
  case .conflictingState(let message): HTTPError(.conflict, message: message)
  case .notPersisted(let message):
    HTTPError(.serviceUnavailable, message: "not persisted yet (retried): \(message)")
  case .refused(let message):
    HTTPError(.serviceUnavailable, message: "not done: \(message)")
  case .unstorable(let message):
    HTTPError(.unprocessableContent, message: "the database cannot store it: \(message)")
  }
}

private struct Problem: Encodable {
  let error: String
}

private func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, tag: String? = nil)
  throws -> Response
{
  let data = try encoder.encode(value)
  var headers: HTTPFields = [.contentType: "application/json"]
  if let tag { headers[.eTag] = tag }
  return Response(
    status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
}

/// Sorted keys: the same value is the same bytes on every instance (the list's tag hashes them).
/// Dates in ISO 8601, as the requests' decoder reads them.
private let encoder = {
  let encoder = JSONEncoder()
  encoder.outputFormatting = .sortedKeys
  encoder.dateEncodingStrategy = .iso8601
  return encoder
}()
