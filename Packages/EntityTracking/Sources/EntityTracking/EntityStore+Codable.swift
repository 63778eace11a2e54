extension EntityStore: Codable where Entity: Codable {
  /// Encodes the entities in order, as an unkeyed container (recorded changes are not encoded).
  ///
  /// - Parameter encoder: The encoder to write to.
  /// - Throws: What encoding an entity throws.
  /// - Complexity: O(*n*), where *n* is the number of entities, plus the cost of encoding them.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    for entity in self { try container.encode(entity) }
  }

  /// Decodes the entities in order, recording no changes. A later entity with the id of an
  /// earlier one replaces it in place.
  ///
  /// - Parameter decoder: The decoder to read from.
  /// - Throws: `DecodingError` when the data is not an array of entities.
  /// - Complexity: O(*n*), where *n* is the number of entities, plus the cost of decoding them.
  public init(from decoder: any Decoder) throws {
    self.init(try [Entity](from: decoder))
  }
}
