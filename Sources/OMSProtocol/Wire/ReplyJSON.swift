import WalletCrypto

/// The decoding the bulk replies share (`CreateWalletsResponse(jsonBytes:)`,
/// `ImportWalletsResponse(jsonBytes:)`): ``JSONByteReader`` for the compact form the core writes, and for
/// anything else (other member orders, unknown members, escapes, or a reply that is wrong) the general
/// parser, which reads any JSON ([RFC 8259](https://www.rfc-editor.org/rfc/rfc8259)) and names the member
/// at fault (`results[3].wallet.id: expected a string`).
enum ReplyJSON {
    /// A reply without the expected shape; the message says what is wrong and at which member.
    struct ShapeError: Error {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The elements of the array member `key` of a reply object.
    ///
    /// - Parameters:
    ///   - capacity: the count expected at most, reserved up front.
    ///   - fast: reads one element through the byte reader; nil for anything it does not take.
    ///   - general: reads one element from its parsed value and its path (`wallets[3]`).
    ///   - failure: the caller's public error, made from the message of a ``ShapeError``.
    /// - Throws: `failure`'s error when the bytes are not JSON (with the byte offset) or an element is not
    ///   what `general` takes (with its path).
    static func elements<Element, Failure: Error>(
        _ key: String, of bytes: [UInt8], reserving capacity: Int,
        fast: (inout JSONByteReader) -> Element?,
        general: (JSONValue, String) throws(ShapeError) -> Element,
        failure: (String) -> Failure
    ) throws(Failure) -> [Element] {
        if let elements = JSONByteReader.read(bytes, { $0.reply(key, reserving: capacity, fast) }) { return elements }
        do {
            return try parsedElements(key, of: bytes, general)
        } catch {
            throw failure(error.description)
        }
    }

    private static func parsedElements<Element>(
        _ key: String, of bytes: [UInt8], _ general: (JSONValue, String) throws(ShapeError) -> Element
    ) throws(ShapeError) -> [Element] {
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch {
            throw ShapeError("reply is not JSON: \(error)")
        }
        guard let list = root[key]?.arrayValue else { throw ShapeError("\(key): expected an array") }
        var elements: [Element] = []
        elements.reserveCapacity(list.count)
        for (index, item) in list.enumerated() {
            elements.append(try general(item, "\(key)[\(index)]"))
        }
        return elements
    }
}
