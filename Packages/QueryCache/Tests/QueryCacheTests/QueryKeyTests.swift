import Foundation
import QueryCache
import Testing

@Suite struct QueryKeyTests {
  @Test func arrayLiteralAcceptsAnyAndJoinsBySlash() {
    let key: QueryKey = [
      "users", 123, UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
    ]
    #expect(key.parts == ["users", "123", "00000000-0000-0000-0000-000000000000"])
    #expect(key.description == "users/123/00000000-0000-0000-0000-000000000000")
  }

  @Test func stringLiteralSinglePart() {
    let key: QueryKey = "users"
    #expect(key.parts == ["users"])
    #expect(key.description == "users")
  }

  @Test func aKeyIsUnderItsPrefixes() {
    let key: QueryKey = ["users", 1, "posts"]
    #expect(key.hasPrefix("users"))
    #expect(key.hasPrefix(["users", 1]))
    #expect(key.hasPrefix(key))
    #expect(!key.hasPrefix(["users", 2]))
    #expect(!QueryKey("users").hasPrefix(key))
  }
}
