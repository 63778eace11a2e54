import Foundation
public import Hummingbird

/// The board's HTTP JSON API.
///
/// - `GET /columns`, `POST /columns {"name"}`
/// - `GET /cards` (`ETag`; `If-None-Match` → 304), `GET /cards/:id` (`ETag`: its
///   ``Card/entityTag``)
/// - `POST /cards {"columnID", "title"}` → 201
/// - `PUT /cards/:id {"title"?, "columnID"?}` and `DELETE /cards/:id`, each with the
///   `If-Match` tag of the card it was made against: 428 without it, 412 when it is not the
///   current one or another instance's change committed first (the body then holds the
///   current card).
/// - `GET /health`: this instance's persistence and change feed.
public func makeBoardRouter(_ service: BoardService) -> Router<BasicRequestContext> {
  let router = Router()
  router.get("health") { _, _ in try await json(service.health) }
  router.get("columns") { request, _ in try list(await service.columns, request: request) }
  router.post("columns") { request, context in
    let body = try await request.decode(as: NewColumn.self, context: context)
    return try await created(service.createColumn(name: body.name), tag: nil)
  }
  router.get("cards") { request, _ in try list(await service.cards, request: request) }
  router.get("cards/:id") { _, context in
    let id = try context.parameters.require("id")
    guard let card = await service.card(id) else { throw HTTPError(.notFound) }
    return try json(card, tag: card.entityTag)
  }
  router.post("cards") { request, context in
    let body = try await request.decode(as: NewCard.self, context: context)
    return try await created(
      service.createCard(columnID: body.columnID, title: body.title), tag: \.entityTag)
  }
  router.put("cards/:id") { request, context in
    let id = try context.parameters.require("id")
    let tag = try ifMatch(request)
    let body = try await request.decode(as: CardChange.self, context: context)
    let result = await service.updateCard(
      id: id, ifMatch: tag, title: body.title, columnID: body.columnID)
    switch result {
    case .success(let card): return try json(card, tag: card.entityTag)
    case .failure(let error): return try await failure(error, id: id, service: service)
    }
  }
  router.delete("cards/:id") { request, context in
    let id = try context.parameters.require("id")
    let tag = try ifMatch(request)
    switch await service.deleteCard(id: id, ifMatch: tag) {
    case .success: return Response(status: .noContent)
    case .failure(let error): return try await failure(error, id: id, service: service)
    }
  }
  return router
}

struct NewColumn: Decodable {
  let name: String
}

struct NewCard: Decodable {
  let columnID: String
  let title: String
}

struct CardChange: Decodable {
  let title: String?
  let columnID: String?
}

/// The tag an `If-Match` header names: a strong one (a weak tag never matches a write).
private func ifMatch(_ request: Request) throws -> String {
  guard let value = request.headers[.ifMatch] else {
    throw HTTPError(.preconditionRequired, message: "a write needs If-Match: the card's ETag")
  }
  guard value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 else {
    throw HTTPError(.badRequest, message: "If-Match is not a strong entity tag: \(value)")
  }
  return value
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

private func created<Entity: Encodable>(
  _ result: Result<Entity, BoardError>, tag: ((Entity) -> String)?
) throws -> Response {
  switch result {
  case .success(let entity): return try json(entity, status: .created, tag: tag?(entity))
  case .failure(let error): throw httpError(error)
  }
}

/// A refused write: 412 with the current card (when there is one), or the error's status.
private func failure(_ error: BoardError, id: String, service: BoardService) async throws
  -> Response
{
  switch error {
  case .preconditionFailed, .conflict:
    guard let current = await service.card(id) else {
      return try json(Problem(error: "the card was deleted"), status: .preconditionFailed)
    }
    return try json(current, status: .preconditionFailed, tag: current.entityTag)
  default:
    throw httpError(error)
  }
}

private func httpError(_ error: BoardError) -> HTTPError {
  switch error {
  case .notFound: HTTPError(.notFound)
  case .preconditionFailed, .conflict: HTTPError(.preconditionFailed)
  case .invalid(let message): HTTPError(.badRequest, message: message)
  case .notPersisted(let message):
    HTTPError(.serviceUnavailable, message: "not persisted yet (retried): \(message)")
  case .refused(let message):
    HTTPError(.serviceUnavailable, message: "not done: \(message)")
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
private let encoder = {
  let encoder = JSONEncoder()
  encoder.outputFormatting = .sortedKeys
  return encoder
}()
