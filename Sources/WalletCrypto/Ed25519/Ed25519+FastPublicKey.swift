internal import CSodium

extension Ed25519 {
    /// The public key RFC 8032 derives from a 32-byte seed (section 5.1.5), computed in Swift.
    ///
    /// The same bytes as `PrivateKey(seed:).publicKey` (libsodium), about 12% less CPU per key; use
    /// ``publicKeys(seeds:)`` for many seeds, which shares one field inversion among them (about 36% less
    /// than libsodium; docs/bench.md "Ed25519 public keys"). Constant time in the seed: see
    /// ``publicKeys(seeds:)``.
    ///
    /// - Throws: `ECCError.Code.invalidKeyLength` if the seed is not 32 bytes.
    /// - SeeAlso: <https://www.rfc-editor.org/rfc/rfc8032#section-5.1.5>
    public static func publicKey(seed: SecretBytes) throws(ECCError) -> PublicKey {
        try publicKeys(seeds: [seed])[0]
    }

    /// The public keys of many 32-byte seeds (RFC 8032 section 5.1.5), in order, normalised together.
    ///
    /// Per seed: SHA-512, clamp the first half into the scalar a, then a·B by 52 lookups in a table of
    /// multiples of B (built from B at first use) and 52 mixed additions, no doubling, in extended
    /// coordinates. Seeds go four or eight at a time (``Ed25519LaneField/laneCount``) through
    /// ``Ed25519LanePoint`` (each field product multiplies the points' limbs with the same vector
    /// instructions), the rest of a chunk alone. The points
    /// of a chunk of seeds are brought to affine form with one field inversion for the whole chunk
    /// (Montgomery's trick) instead of one each: the inversion is about a quarter of a single derivation.
    ///
    /// Constant time in the seeds: the scalar is recoded to signed radix-32 digits by arithmetic only, each
    /// lookup reads every entry of its table row and keeps one by masks, and the field arithmetic has no
    /// data-dependent branch or index. The hash, the digits and the working points are wiped afterwards.
    ///
    /// - Throws: `ECCError.Code.invalidKeyLength` (naming the index) if a seed is not 32 bytes; then no key
    ///   is derived.
    /// - SeeAlso: <https://www.rfc-editor.org/rfc/rfc8032#section-5.1.5>
    public static func publicKeys(seeds: [SecretBytes]) throws(ECCError) -> [PublicKey] {
        for (index, seed) in seeds.enumerated() where seed.count != 32 {
            throw ECCError(.invalidKeyLength, "Ed25519 seed \(index): expected 32 bytes, got \(seed.count)")
        }
        var keys: [PublicKey] = []
        keys.reserveCapacity(seeds.count)
        let table = Ed25519BaseTable.shared
        let chunk = min(seeds.count, fastBatchChunk)
        guard chunk > 0 else { return keys }
        let points = UnsafeMutablePointer<Ed25519Point>.allocate(capacity: chunk)
        let zs = UnsafeMutablePointer<Ed25519FieldElement>.allocate(capacity: 2 * chunk)
        // Per lane: hash (64 bytes) then digits (52, room for 64); then the lookup's 16 lane masks. Wiped
        // below: they are the secret scalars.
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: scratchBytes, alignment: 64)
        defer {
            sodium_memzero(points, chunk * MemoryLayout<Ed25519Point>.stride)
            sodium_memzero(zs, 2 * chunk * MemoryLayout<Ed25519FieldElement>.stride)
            sodium_memzero(scratch, scratchBytes)
            points.deallocate()
            zs.deallocate()
            scratch.deallocate()
        }
        var start = 0
        while start < seeds.count {
            let count = min(chunk, seeds.count - start)
            var i = 0
            // `lanes` seeds at a time in the lanes of one Ed25519LanePoint, the rest one by one.
            while i + lanes <= count {
                for lane in 0..<lanes {
                    seeds[start + i + lane].withUnsafeBytes { seed in
                        clampedScalar(seed: seed.baseAddress!, into: scratch + lane * laneScratchBytes)
                    }
                }
                let multiples = basePointMultiples(scratch: scratch, table: table)
                for lane in 0..<lanes {
                    points[i + lane] = multiples.lane(lane)
                    zs[i + lane] = points[i + lane].z
                }
                i += lanes
            }
            while i < count {
                seeds[start + i].withUnsafeBytes { seed in
                    points[i] = basePointMultiple(seed: seed.baseAddress!, table: table, scratch: scratch)
                }
                zs[i] = points[i].z
                i += 1
            }
            Ed25519FieldElement.invertInPlace(zs, count: count, scratch: zs + chunk)
            for i in 0..<count {
                let bytes = [UInt8](unsafeUninitializedCapacity: 32) { buffer, initialized in
                    points[i].encode(zInverse: zs[i], into: buffer.baseAddress!)
                    initialized = 32
                }
                keys.append(PublicKey(validated: bytes))
            }
            start += count
        }
        return keys
    }

    /// Seeds per shared inversion: enough that the inversion is a rounding error per key, few enough that
    /// the working points stay in the L1 cache.
    static let fastBatchChunk = 64

    /// a·B for the seed at `seed` (32 bytes), in extended coordinates; `scratch` holds 128 bytes.
    private static func basePointMultiple(
        seed: UnsafeRawPointer, table: Ed25519BaseTable, scratch: UnsafeMutableRawPointer
    ) -> Ed25519Point {
        clampedScalar(seed: seed, into: scratch)
        return basePointMultiple(
            scalar: scratch.assumingMemoryBound(to: UInt8.self),
            digits: (scratch + 64).assumingMemoryBound(to: Int8.self), table: table)
    }

    /// Scratch bytes per lane: the hash (64), then the digits (52, room for 64).
    static let laneScratchBytes = 128
    /// Bytes of scratch per derivation: the lanes, then 16 lane masks.
    static let scratchBytes = lanes * laneScratchBytes + 16 * MemoryLayout<Ed25519LaneField.Lanes>.stride
    /// Seeds derived side by side.
    static let lanes = Ed25519LaneField.laneCount

    /// SHA-512 of the 32-byte seed at `seed`, its first half clamped into the scalar a (RFC 8032 5.1.5
    /// steps 1-2), written at `out` (64 bytes).
    private static func clampedScalar(seed: UnsafeRawPointer, into out: UnsafeMutableRawPointer) {
        let hash = out.assumingMemoryBound(to: UInt8.self)
        // libsodium's SHA-512: a plain function on the stack, where OpenSSL's EVP_Digest allocates and
        // frees a digest context per call.
        _ = crypto_hash_sha512(hash, seed.assumingMemoryBound(to: UInt8.self), 32)
        // Clear the low 3 bits and bit 255, set bit 254.
        hash[0] &= 248
        hash[31] = (hash[31] & 127) | 64
    }

    /// a_n·B in lane n for the ``lanes`` clamped scalars in `scratch` (lane n's at offset `laneScratchBytes`·n,
    /// its digits written after it); the 16 lane masks after the lanes.
    ///
    /// The same 52 additions as ``basePointMultiple(scalar:digits:table:)``, ``lanes`` points at a time:
    /// each product multiplies a pair of limbs per lane with one vector instruction.
    static func basePointMultiples(scratch: UnsafeMutableRawPointer, table: Ed25519BaseTable) -> Ed25519LanePoint {
        for lane in 0..<lanes {
            let base = scratch + lane * laneScratchBytes
            recodeSignedRadix32(
                scalar: base.assumingMemoryBound(to: UInt8.self), into: (base + 64).assumingMemoryBound(to: Int8.self))
        }
        let digits = UnsafePointer((scratch + 64).assumingMemoryBound(to: Int8.self))
        let masks = (scratch + lanes * laneScratchBytes).bindMemory(to: Ed25519LaneField.Lanes.self, capacity: 16)
        var point = Ed25519LanePoint.identity
        for row in 0..<radix32Digits {
            var rowDigits = Ed25519LaneField.LaneDigits()
            for lane in 0..<lanes { rowDigits[lane] = Int64(digits[lane * laneScratchBytes + row]) }
            point = point.adding(table.selectLanes(row: row, digits: rowDigits, masks: masks))
        }
        return point
    }

    /// a·B for the 32-byte little-endian scalar a < 2^255 at `scalar`; `digits` holds 52 bytes of scratch.
    ///
    /// One table row per digit (row j holds the multiples of 32^j·B), so the digits' multiples are simply
    /// added up: 52 mixed additions and no doubling. (Rows of 256^j·B and radix-16 digits, as in ref10,
    /// take a table a third the size but 64 additions and 4 doublings: 25-50 % more CPU per key in
    /// `walletops-bench ed25519`, docs/bench.md "Ed25519 public keys".)
    static func basePointMultiple(
        scalar: UnsafePointer<UInt8>, digits: UnsafeMutablePointer<Int8>, table: Ed25519BaseTable
    ) -> Ed25519Point {
        recodeSignedRadix32(scalar: scalar, into: digits)
        var point = Ed25519Point.identity
        for row in 0..<radix32Digits {
            point = point.adding(table.select(row: row, digit: digits[row]))
        }
        return point
    }

    /// Signed radix-32 digits of a scalar below 2^255: 51 windows of 5 bits and a carry digit; the base
    /// table has a row for each.
    static let radix32Digits = 52

    /// Writes the 52 signed radix-32 digits e_i in [-16, 16) (the last one 0 or 1) with Σ e_i·32^i = a,
    /// for a < 2^255.
    ///
    /// Arithmetic only: a digit of 16 or more borrows 32 from itself and carries 1 upwards, with the carry
    /// computed as (e + 16) >> 5, never by a comparison. Which bytes a window reads depends on its position
    /// alone, not on the scalar.
    static func recodeSignedRadix32(scalar: UnsafePointer<UInt8>, into digits: UnsafeMutablePointer<Int8>) {
        let windows = radix32Digits - 1
        for i in 0..<windows {
            let bit = 5 * i
            let byte = bit >> 3
            let low = UInt16(scalar[byte])
            let high = byte + 1 < 32 ? UInt16(scalar[byte + 1]) << 8 : 0
            digits[i] = Int8(truncatingIfNeeded: ((low | high) >> UInt16(bit & 7)) & 31)
        }
        var carry: Int8 = 0
        for i in 0..<windows {
            let e = digits[i] &+ carry
            carry = (e &+ 16) >> 5
            digits[i] = e &- (carry << 5)
        }
        digits[windows] = carry
    }
}
