import ReduxCoreTesting
import Testing

@testable import QueryCache

@MainActor
@Suite(.timeLimit(.minutes(1))) struct MutationClientTests {
  let client = QueryClient(clock: ManualClock())

  @Test func aSuccessfulMutationInvalidatesThroughOnCompleted() async throws {
    try await client.setQueryData(["user", 1], "Alice")
    let mutation = MutationClient(client: client)
    let result = await mutation.asyncPerform {
    } onCompleted: { client in
      await client.invalidate(["user", 1])
    }
    #expect((try? result.get()) != nil)
    #expect(await client.getQueryData(["user", 1], as: String.self) == nil)
    #expect(!mutation.isLoading && mutation.box.error == nil)
  }

  @Test func aFailedMutationRecordsItsErrorUntilReset() async {
    let mutation = MutationClient(client: client)
    let result = await mutation.asyncPerform { throw NetworkError() }
    #expect(throws: NetworkError.self) { try result.get() }
    #expect(mutation.box.error is NetworkError)
    mutation.reset()
    #expect(mutation.box.error == nil)
  }

  @Test func aTypedMutationReturnsItsValue() async throws {
    let mutation = MutationClient(client: client)
    let received = await mutation.asyncPerform {
      42
    } onCompleted: { value, _ in
      #expect(value == 42)
    }
    #expect(try received.get() == 42)
  }

  @Test func aRunningMutationIsLoading() async {
    let mutation = MutationClient(client: client)
    let fn = QueryFunction<Void>(.success(()))
    fn.hold()
    let run = Task { await mutation.asyncPerform { try await fn.function() } }
    await fn.waitForCalls(1)
    #expect(mutation.isLoading)
    fn.release()
    _ = await run.value
    #expect(!mutation.isLoading)
  }

  @Test func anOptimisticUpdateShowsAtOnceAndRollsBackOnFailure() async throws {
    try await client.setQueryData("todo", "write tests")
    let mutation = MutationClient(client: client)
    let fn = QueryFunction<Void>(.failure(NetworkError()))
    fn.hold()
    let run = Task {
      await mutation.asyncPerform(optimistic: "todo", "write tests (done)") {
        try await fn.function()
      }
    }
    await fn.waitForCalls(1)
    #expect(await client.getQueryData("todo", as: String.self) == "write tests (done)")
    fn.release()
    _ = await run.value
    #expect(await client.getQueryData("todo", as: String.self) == "write tests")
  }

  /// A fetch that started before the mutation returns after the optimistic value was set: its
  /// older value must not replace it (the change would show undone while it is sent).
  @Test func aFetchUnderWayDoesNotWipeTheOptimisticValue() async throws {
    try await client.setQueryData("todo", "write tests")
    let fetched = QueryFunction<String>(.success("write tests (as fetched before)"))
    fetched.hold()
    let client = client
    let refetch = Task {
      await client.fetch(queryKey: "todo", forceRefresh: true, queryFn: fetched.function)
    }
    await fetched.waitForCalls(1)
    let mutation = MutationClient(client: client)
    let sent = QueryFunction<Void>(.success(()))
    sent.hold()
    let run = Task {
      await mutation.asyncPerform(optimistic: "todo", "write tests (done)") {
        try await sent.function()
      }
    }
    await sent.waitForCalls(1)
    fetched.release()
    let refetched = await refetch.value.result
    #expect(throws: CancellationError.self) { try refetched.get() }
    #expect(await client.getQueryData("todo", as: String.self) == "write tests (done)")
    sent.release()
    #expect((try? await run.value.get()) != nil)
    #expect(await client.getQueryData("todo", as: String.self) == "write tests (done)")
  }
}
