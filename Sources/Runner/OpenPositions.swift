/// The positions a step has handed out without an outcome yet, each with the hash of the keys before
/// it: the lowest one is the step's watermark.
///
/// Positions are opened in increasing order, so they live in a sorted array; closing one is a binary
/// search and a tombstone, the front is trimmed past closed entries, and the array is compacted when
/// the tombstones outnumber the live entries. So opening and closing cost no hashing, and memory stays
/// proportional to the open items even when one stuck item lets the others run far ahead of it.
struct OpenPositions {
    private var positions: [Int] = []
    private var hashes: [UInt64] = []
    private var isOpen: [Bool] = []
    private var head = 0
    /// Entries still open.
    private(set) var count = 0

    /// Opens `position` (greater than every position opened before).
    mutating func open(_ position: Int, hash: UInt64) {
        positions.append(position)
        hashes.append(hash)
        isOpen.append(true)
        count += 1
    }

    /// Closes `position`; nothing happens when it is not open.
    mutating func close(_ position: Int) {
        var low = head
        var high = positions.count
        while low < high {
            let middle = (low + high) / 2
            if positions[middle] < position { low = middle + 1 } else { high = middle }
        }
        guard low < positions.count, positions[low] == position, isOpen[low] else { return }
        isOpen[low] = false
        count -= 1
        while head < positions.count && !isOpen[head] { head += 1 }
        if head == positions.count {
            positions.removeAll(keepingCapacity: true)
            hashes.removeAll(keepingCapacity: true)
            isOpen.removeAll(keepingCapacity: true)
            head = 0
        } else if positions.count - head - count > count + 64 {
            compact()
        }
    }

    /// Entries stored, open or not (for tests of the memory bound).
    var storedCount: Int { positions.count }

    /// The lowest open position and the hash of the keys before it.
    var lowest: (position: Int, hash: UInt64)? {
        head < positions.count ? (positions[head], hashes[head]) : nil
    }

    private mutating func compact() {
        var kept = 0
        for index in head..<positions.count where isOpen[index] {
            positions[kept] = positions[index]
            hashes[kept] = hashes[index]
            kept += 1
        }
        positions.removeLast(positions.count - kept)
        hashes.removeLast(hashes.count - kept)
        isOpen = Array(repeating: true, count: kept)
        head = 0
    }
}
