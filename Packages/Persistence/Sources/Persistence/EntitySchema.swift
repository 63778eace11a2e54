/// The stored properties of an entity type, in the order its `Decodable` conformance reads
/// them: what a backend makes a table's columns of.
///
/// It is found from the type alone, by decoding one sample entity from a decoder that makes up
/// a value for each property and records what was asked: no instance, no macro, no
/// hand-written list. A property the probe cannot make up a value for (an enum with associated
/// values, a type whose `init(from:)` checks its input) needs a sample: make an enum without
/// payloads `CaseIterable`, or conform the type to ``SchemaSample``.
///
/// ```swift
/// struct Card: Codable, Identifiable { let id: Int; var title: String; var due: Date? }
/// try EntitySchema(of: Card.self).properties.map(\.name)  // ["id", "title", "due"]
/// ```
public struct EntitySchema: Sendable, Equatable {
  /// One stored property.
  public struct Property: Sendable, Equatable {
    /// Its coding key: the column's name.
    public let name: String
    /// What it stores.
    public let kind: Kind
    /// Whether a stored row may lack it (an optional, or a property decoded with
    /// `decodeIfPresent` and given a default): such a column is added without a migration's
    /// value, and old rows load with `nil` there.
    public let isOptional: Bool

    /// A property as the probe records it.
    ///
    /// - Parameters:
    ///   - name: Its coding key.
    ///   - kind: What it stores.
    ///   - isOptional: Whether a stored row may lack it.
    public init(name: String, kind: Kind, isOptional: Bool) {
      self.name = name
      self.kind = kind
      self.isOptional = isOptional
    }
  }

  /// What a property stores, as a backend chooses a column type for it.
  public enum Kind: String, Sendable, Equatable {
    /// An integer of any width.
    case integer
    /// A `Bool`.
    case boolean
    /// A `Float` or `Double`.
    case real
    /// A `String`, or a value encoded as one (a `String`-backed enum, a `URL`).
    case text
    /// A `Date`.
    case date
    /// A `UUID`.
    case uuid
    /// `Data`.
    case blob
    /// Anything nested (a struct, an array, a dictionary, an enum with payloads): one JSON
    /// value.
    case json
  }

  /// The properties, in decoding order.
  public let properties: [Property]

  /// Finds the stored properties of `type`.
  ///
  /// - Parameter type: The entity type.
  /// - Throws: ``EntitySchemaError`` when a property cannot be sampled or the type does not
  ///   decode from a keyed container.
  public init<Entity: Decodable>(of type: Entity.Type) throws(EntitySchemaError) {
    let probe = SchemaProbe()
    do {
      _ = try Entity(from: SchemaProbeDecoder(probe: probe))
    } catch let error as EntitySchemaError {
      throw error
    } catch {
      throw .undecodable(type: "\(Entity.self)", underlying: "\(error)")
    }
    properties = probe.properties
  }

  /// The property named `name`.
  ///
  /// - Parameter name: A coding key.
  /// - Returns: The property, or `nil` when the entity has none of that name.
  public func property(named name: String) -> Property? {
    properties.first { $0.name == name }
  }
}

/// Why the stored properties of an entity type could not be found.
public enum EntitySchemaError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The probe could not make up a value of `type` for `property`.
  case unsampled(property: String, type: String)
  /// The entity does not decode from a keyed container (it is not a struct or class of
  /// properties), or its `init(from:)` refused every made-up value.
  case undecodable(type: String, underlying: String)

  /// What failed, and what to change in the entity type.
  public var description: String {
    switch self {
    case .unsampled(let property, let type):
      "property '\(property)': no value of \(type) can be made up to find its column; make "
        + "\(type) CaseIterable (an enum without payloads) or conform it to SchemaSample"
    case .undecodable(let type, let underlying):
      "\(type) does not decode as a row of properties: \(underlying)"
    }
  }
}

/// A type that gives the schema probe a value of itself, for a property of its type that the
/// probe cannot make up (an enum with associated values, a type that validates what it
/// decodes).
///
/// ```swift
/// enum Estimate: Codable, SchemaSample {
///   case points(Int), tShirt(String)
///   static var schemaSample: Estimate { .points(1) }
/// }
/// ```
public protocol SchemaSample {
  /// Any valid value: only its type and shape matter.
  static var schemaSample: Self { get }
}
