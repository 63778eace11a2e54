import GRDB

import struct Foundation.Data
import class Foundation.JSONDecoder
import class Foundation.JSONEncoder

/// An entity as a GRDB record: each of its properties a column, through GRDB's `Codable`
/// record support (numbers, strings, booleans and `Data` as such, optionals as NULL, nested
/// values and collections as JSON text). An `EntityTable` reads its rows this way, without
/// asking the entity type to conform to GRDB's protocols; it writes them with a
/// ``ColumnEncoder``, which gives each property the value GRDB's encoding gives it.
struct EntityRow<Entity: Codable>: Codable, FetchableRecord, EncodableRecord {
  var entity: Entity

  init(_ entity: Entity) { self.entity = entity }

  init(from decoder: any Decoder) throws { entity = try Entity(from: decoder) }

  func encode(to encoder: any Encoder) throws { try entity.encode(to: encoder) }

  // NB: a date is stored as its seconds since 2001-01-01 (a REAL), exactly the `Date`'s own
  // value: GRDB's default text form keeps milliseconds only, so a reloaded entity would differ
  // from the one saved. It is also what the JSON of earlier releases held, so converting their
  // rows changes no date.
  static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
    .timeIntervalSinceReferenceDate
  }

  static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
    .timeIntervalSinceReferenceDate
  }

  static func databaseJSONEncoder(for column: String) -> JSONEncoder { NestedJSON.encoder() }

  static func databaseJSONDecoder(for column: String) -> JSONDecoder { JSONDecoder() }
}

/// The JSON of a nested value's column.
///
/// NB: as Foundation writes it by default (a date in seconds since 2001, exact), not GRDB's
/// default (milliseconds since 1970), for the same reason as the dates of columns.
enum NestedJSON {
  static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.nonConformingFloatEncodingStrategy = .throw
    encoder.outputFormatting = .sortedKeys
    return encoder
  }
}
