import Persistence
import PostgresNIO

import struct Foundation.UUID

/// One property's value, as its column's SQL type holds it (``RowEncoder`` makes them).
enum ColumnValue: Sendable {
  case null
  case integer(Int64)
  case real(Double)
  case boolean(Bool)
  case text(String)
  case uuid(UUID)
  /// A nested value's JSON text.
  case json(String)
}

/// One column of some rows of a batch, sent as one typed array parameter (`bigint[]`,
/// `text[]`, …) in PostgreSQL's binary array format, with a `nil` as a NULL element: what
/// `UNNEST` spreads into the column.
///
/// NB: written here because postgres-nio encodes arrays of non-optional elements only. The
/// values are written straight into the statement's bind buffer, with no array built per
/// column.
struct ColumnArray: PostgresDynamicTypeEncodable {
  /// The values of every row of the batch, row after row.
  let values: [ColumnValue]
  /// The place in ``values`` of each row's first value, in the order of the array.
  let rows: [Int]
  /// The column's place in a row.
  let column: Int
  let kind: EntitySchema.Kind

  /// The SQL types of the column's values and of their array.
  private var types: (element: PostgresDataType, array: PostgresDataType) {
    switch kind {
    case .integer: (.int8, .int8Array)
    case .boolean: (.bool, .boolArray)
    case .real, .date: (.float8, .float8Array)
    case .text, .blob: (.text, .textArray)
    case .uuid: (.uuid, .uuidArray)
    case .json: (.jsonb, .jsonbArray)
    }
  }

  var psqlType: PostgresDataType { types.array }

  var psqlFormat: PostgresFormat { .binary }

  func encode<JSONEncoder: PostgresJSONEncoder>(
    into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
  ) {
    // The header: dimensions, whether NULLs may follow, the element type, then the one
    // dimension's length and lower bound.
    buffer.writeInteger(rows.isEmpty ? 0 : 1, as: Int32.self)
    buffer.writeInteger(1, as: Int32.self)
    buffer.writeInteger(types.element.rawValue)
    guard !rows.isEmpty else { return }
    buffer.writeInteger(Int32(rows.count))
    buffer.writeInteger(1, as: Int32.self)
    // NB: room made at once for the fixed-size elements (and a text's length): grown as
    // written, the bind buffer of a 100,000-row batch was copied again at each doubling.
    buffer.reserveCapacity(minimumWritableBytes: rows.count * (types.element == .bool ? 5 : 12))
    for row in rows {
      switch values[row + column] {
      case .null:
        buffer.writeInteger(-1, as: Int32.self)
      // NB: an element's length and value in one write: each write checks the buffer's room.
      case .integer(let value):
        buffer.writeMultipleIntegers(Int32(8), value)
      case .real(let value):
        buffer.writeMultipleIntegers(Int32(8), value.bitPattern)
      case .boolean(let value):
        buffer.writeMultipleIntegers(Int32(1), UInt8(value ? 1 : 0))
      case .text(let value):
        buffer.writeInteger(Int32(value.utf8.count))
        buffer.writeString(value)
      case .uuid(let value):
        buffer.writeInteger(16, as: Int32.self)
        withUnsafeBytes(of: value.uuid) { _ = buffer.writeBytes($0) }
      case .json(let value):
        // NB: binary jsonb is a version byte (1) and the JSON text.
        buffer.writeMultipleIntegers(Int32(value.utf8.count + 1), UInt8(1))
        buffer.writeString(value)
      }
    }
  }
}
