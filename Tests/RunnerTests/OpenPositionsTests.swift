import Testing

@testable import Runner

/// The open-position list behind the watermark: the lowest open position whatever the closing order,
/// and memory that follows the open items, not the distance a stuck item lets the others run ahead.
@Suite struct OpenPositionsTests {
    @Test func theLowestOpenPositionFollowsClosesInAnyOrder() throws {
        var open = OpenPositions()
        for position in 0..<100 { open.open(position, hash: UInt64(position) * 7) }
        // Close evens first, then odds from the top: the lowest open one is always the answer.
        for position in stride(from: 0, to: 100, by: 2) { open.close(position) }
        #expect(open.lowest?.position == 1 && open.lowest?.hash == 7)
        #expect(open.count == 50)
        open.close(1000)
        open.close(4)
        #expect(open.count == 50, "closing an unknown or closed position changes nothing")
        for position in stride(from: 99, through: 3, by: -2) { open.close(position) }
        #expect(open.lowest?.position == 1)
        open.close(1)
        #expect(open.lowest == nil && open.count == 0)
    }

    @Test func aStuckItemKeepsTheListSmall() throws {
        var open = OpenPositions()
        open.open(0, hash: 42)
        var highest = 0
        // 100,000 items pass through while item 0 never closes, at most 300 open at a time.
        for position in 1...100_000 {
            open.open(position, hash: 0)
            if position > 300 { open.close(position - 300) }
            highest = max(highest, open.storedCount)
        }
        #expect(open.lowest?.position == 0 && open.lowest?.hash == 42)
        #expect(open.count == 301)
        #expect(highest <= 2 * 301 + 64 + 1, "stored entries stay proportional to the open ones: \(highest)")
    }
}
