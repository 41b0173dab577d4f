import Foundation

/// Minimal JSON for flat string maps: sorted keys, so equal maps give equal text (used in identities).
enum JSONText {
    static func object(_ map: [String: String]) -> String {
        var out = "{"
        for (offset, key) in map.keys.sorted().enumerated() {
            if offset > 0 { out += "," }
            appendString(key, to: &out)
            out += ":"
            appendString(map[key]!, to: &out)
        }
        out += "}"
        return out
    }

    static func appendString(_ string: String, to out: inout String) {
        out += "\""
        // The common value needs no escape: appended whole.
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            out += string
            out += "\""
            return
        }
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    static func parseObject(_ text: String) -> [String: String] {
        guard let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object.compactMapValues { $0 as? String }
    }
}
