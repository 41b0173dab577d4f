import Testing

@testable import Runner

/// The feed tells a producer whether a pushed batch was delivered, so a stop never withdraws items a
/// worker already took (which would let a resume run them again without a probe).
@Suite struct StepFeedTests {
    @Test func aBatchClosedWhileWaitingForRoomIsReportedAsDelivered() async throws {
        let feed = StepFeed<Int>(capacity: 2)
        let producer = Task { await feed.push([1, 2, 3, 4]) }
        // The producer waits for room once the batch is buffered; a worker takes one element.
        var taken: [Int] = []
        while taken.isEmpty {
            if let element = await feed.take() { taken.append(element) }
        }
        let left = feed.close()
        #expect(await producer.value == .closedAfterAccepting)
        #expect(taken == [1])
        #expect(Set(taken + left) == [1, 2, 3, 4], "every element either taken or returned by close, once")
    }

    @Test func aBatchPushedAfterCloseIsRejected() async {
        let feed = StepFeed<Int>(capacity: 4)
        _ = feed.close()
        #expect(await feed.push([1]) == .rejected)
    }

    @Test func aBatchWithRoomIsAccepted() async {
        let feed = StepFeed<Int>(capacity: 8)
        #expect(await feed.push([1, 2]) == .accepted)
        #expect(await feed.take() == 1)
    }
}

extension StepFeedTests {
    @Test func aBatchTakeLeavesAFairShareForTheOtherConsumers() async {
        let feed = StepFeed<Int>(capacity: 1024)
        #expect(await feed.push(Array(0..<100)) == .accepted)
        var out: [Int] = []
        #expect(await feed.take(upTo: 32, share: 8, into: &out))
        #expect(out == Array(0..<12), "100 elements among 8 consumers: 12 each")
        #expect(await feed.take(upTo: 5, share: 1, into: &out))
        #expect(out == Array(12..<17), "never more than the limit")
        feed.finish()
        var rest: [Int] = []
        while await feed.take(upTo: 32, share: 1, into: &out) { rest += out }
        #expect(rest == Array(17..<100), "drained in order after finish, then false")
    }
}
