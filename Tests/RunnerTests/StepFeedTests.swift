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
