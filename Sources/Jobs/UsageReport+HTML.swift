import Foundation

extension UsageReport {
    /// The grants table's columns a person needs, visible at 1280 px; every other field of the row is in
    /// its details row (click a row; always printed).
    static let mainColumns = [
        "app", "wallet", "network", "grant", "used", "limit", "percent used", "used in period", "status", "expires",
    ]

    /// The chart's bars at most: the grants nearest their limit (a chart of thousands is not read).
    static let chartLimit = 40
    /// The grants table's rows at most: a large account's page stays one a browser opens and a printer
    /// prints (each grant carries its details row); usage.csv and usage.json have every grant.
    static let tableLimit = 2_000

    /// The grants nearest their limit first (the highest percentage used), ties in report order.
    func nearestTheirLimit(_ count: Int) -> [Row] {
        rows.enumerated().sorted { a, b in
            let x = Self.hundredths(a.element.percentUsed)
            let y = Self.hundredths(b.element.percentUsed)
            return x != y ? x > y : a.offset < b.offset
        }.prefix(count).map(\.element)
    }

    /// One self-contained HTML file for people and for print (no script, font or style from elsewhere: it
    /// opens offline). First the period and the summaries (totals per app, network and wallet, the grants
    /// near their limit), then a chart of the grants nearest their limit, then every grant: the columns
    /// that matter in the table and the rest in a details row. Printed: landscape, every field of every
    /// grant, each section on its own page.
    public var html: String {
        var page = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Remote session usage</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <style>
            body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
            h1{margin:0 0 4px}
            p.period{font-size:18px;font-weight:600;margin:4px 0}
            p.meta{color:#555;margin:4px 0 16px}
            section{margin:0 0 28px}
            table{border-collapse:collapse;margin:8px 0;font-size:13px}
            th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
            th{background:#eef;cursor:pointer;user-select:none;white-space:nowrap}
            td.num{text-align:right;font-variant-numeric:tabular-nums}
            tr.near td{background:#fff3e0}
            tr.grant{cursor:pointer}
            tr.more td{background:#fafafa;font-size:12px}
            tr.more dl{margin:0;columns:3;column-gap:24px}
            tr.more div{break-inside:avoid;margin:0 0 2px}
            tr.more dt{display:inline;font-weight:600;white-space:nowrap}
            tr.more dd{display:inline;margin:0 0 0 4px;word-break:break-all}
            @media screen{tr.more{display:none}tr.more.open{display:table-row}}
            .status{font-weight:600}.status.active{color:#1565c0}.status.near{color:#e65100}
            .status.expired{color:#757575}.status.revoked{color:#c62828}
            .legend span{display:inline-block;margin-right:16px}
            .legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px}
            .active{fill:#1565c0}.near-limit{fill:#e65100}.expired{fill:#9e9e9e}.revoked{fill:#c62828}
            i.active{background:#1565c0}i.near-limit{background:#e65100}i.expired{background:#9e9e9e}
            i.revoked{background:#c62828}
            .bar-limit{fill:#eceff1}.grid{stroke:#b0bec5;stroke-width:1}
            svg text{font-size:12px;font-family:system-ui,sans-serif}
            @page{size:letter landscape;margin:10mm}
            @media print{
              body{margin:0;max-width:none;font-size:11px}
              section{break-before:page}
              section.summary{break-before:auto}
              table{font-size:9px;width:100%;table-layout:auto}
              th{white-space:normal}
              td{word-break:break-word}
              tr.more td{font-size:8px}
              tr.more dl{columns:3}
              th{background:#eee}
              tr{break-inside:avoid}
              .hint{display:none}
            }
            </style></head><body>
            <h1>Remote session usage</h1>
            <p class="period">\(Self.escape(periodLine))</p>
            <p class="meta">Generated \(Self.escape(Self.time(generatedAt))). \(rows.count) grants in \
            \(sessionCount) sessions. Near limit: at or over \(nearLimit)%.</p>

            """
        page += "<section class=\"summary\">\n<h2>Summary</h2>\n"
        for section in summarySections {
            page +=
                "<h3>\(section.title)</h3>\n" + Self.table(id: section.id, header: section.header, rows: section.rows)
        }
        page += "<h3>Near their limit (at or over \(nearLimit)%)</h3>\n"
        page +=
            nearLimitRows.isEmpty
            ? "<p>None.</p>\n"
            : Self.table(id: "near", header: Self.nearLimitHeader, rows: nearLimitRows.map(Self.nearLimitValues))
        page += "</section>\n<section>\n<h2>Used against limit</h2>\n" + chart + "</section>\n"
        page += "<section>\n<h2>Sessions and grants</h2>\n"
        page += "<p class=\"hint\">Click a row for every field (wallet and session ids, addresses, raw amounts).</p>\n"
        if rows.count > Self.tableLimit {
            page +=
                "<p>The \(Self.tableLimit) grants nearest their limit of \(rows.count); usage.csv and usage.json "
                + "have every grant.</p>\n"
        }
        page += grantsTable + "</section>\n"
        page += """
            <script>
            // A grant row opens its details row.
            document.querySelectorAll('tr.grant').forEach(function (row) {
              row.addEventListener('click', function () { row.nextElementSibling.classList.toggle('open'); });
            });
            // Click a header to sort its column (numbers as numbers, exact integers by length then text); a
            // grant's details row moves with it.
            document.querySelectorAll('table.sortable').forEach(function (table) {
              table.querySelectorAll('th').forEach(function (th, column) {
                th.addEventListener('click', function () {
                  var body = table.tBodies[0];
                  var groups = [];
                  Array.prototype.forEach.call(body.rows, function (row) {
                    if (row.classList.contains('more')) { groups[groups.length - 1].push(row); } else { groups.push([row]); }
                  });
                  var up = th.getAttribute('data-up') !== '1';
                  th.setAttribute('data-up', up ? '1' : '0');
                  var key = function (group) {
                    var cell = group[0].cells[column];
                    return cell.getAttribute('data-sort') || cell.textContent;
                  };
                  groups.sort(function (a, b) {
                    var x = key(a), y = key(b);
                    var numeric = /^[0-9]+(\\.[0-9]+)?$/;
                    var order;
                    if (numeric.test(x) && numeric.test(y)) {
                      var xi = x.split('.')[0], yi = y.split('.')[0];
                      order = xi.length !== yi.length ? xi.length - yi.length : (x < y ? -1 : x > y ? 1 : 0);
                    } else {
                      order = x.localeCompare(y);
                    }
                    return up ? order : -order;
                  });
                  groups.forEach(function (group) { group.forEach(function (row) { body.appendChild(row); }); });
                });
              });
            });
            </script>
            </body></html>

            """
        return page
    }

    /// How a row is drawn: `near-limit` for an active grant at or over the threshold, else its status.
    func chartStatus(_ row: Row) -> String {
        row.status == "active" && isNearLimit(row) ? "near-limit" : row.status
    }

    /// The grants table: the main columns, each grant followed by its details row of every CSV field.
    var grantsTable: String {
        var text = "<table class=\"sortable\" id=\"grants\"><thead><tr>"
        text += Self.mainColumns.map { "<th>\(Self.escape($0))</th>" }.joined() + "</tr></thead><tbody>\n"
        for row in rows.count > Self.tableLimit ? nearestTheirLimit(Self.tableLimit) : rows {
            let status = chartStatus(row)
            let cells: [(String, String?)] = [
                (row.appName, nil), (row.walletName, nil), (row.network, nil), (row.grantLabel, nil),
                (row.amountText(row.usedUnits, raw: row.used), row.used),
                (row.amountText(row.limitUnits, raw: row.limit), row.limit),
                (row.percentUsed.isEmpty ? "-" : row.percentUsed + "%", row.percentUsed),
                (
                    row.usedInPeriod.isEmpty ? "-" : row.amountText(row.usedInPeriodUnits, raw: row.usedInPeriod),
                    row.usedInPeriod
                ),
                (row.status, nil), (row.expiresAt, nil),
            ]
            text += "<tr class=\"grant\(isNearLimit(row) ? " near" : "")\">"
            for (index, (value, sortKey)) in cells.enumerated() {
                let classes =
                    index == 8
                    ? " class=\"status \(status == "near-limit" ? "near" : status)\""
                    : sortKey != nil ? " class=\"num\"" : ""
                let sort = sortKey.map { " data-sort=\"\(Self.escape($0))\"" } ?? ""
                text += "<td\(classes)\(sort)>\(Self.escape(value))</td>"
            }
            text += "</tr>\n<tr class=\"more\"><td colspan=\"\(Self.mainColumns.count)\"><dl>"
            for (name, value) in zip(Self.header, row.values) {
                text += "<div><dt>\(Self.escape(name))</dt><dd>\(Self.escape(value.isEmpty ? "-" : value))</dd></div>"
            }
            text += "</dl></td></tr>\n"
        }
        return text + "</tbody></table>\n"
    }

    /// Horizontal bars of the grants nearest their limit: the limit in grey, the used share over it in
    /// the grant's status colour, an axis of 0-100 % of the limit, each bar labelled by app, wallet
    /// reference and grant, with used of limit in units.
    var chart: String {
        let shown = nearestTheirLimit(Self.chartLimit)
        let left = 390.0
        let barWidth = 420.0
        let rowHeight = 24.0
        let top = 28.0
        let height = top + Double(max(1, shown.count)) * rowHeight + 34
        var svg = "<p class=\"legend\">"
        for (status, label) in [
            ("active", "active"), ("near-limit", "active, at or over \(nearLimit)%"), ("expired", "expired"),
            ("revoked", "revoked"),
        ] {
            svg += "<span><i class=\"\(status)\"></i>\(Self.escape(label))</span>"
        }
        svg += "</p>\n"
        if shown.count < rows.count {
            svg +=
                "<p>The \(shown.count) grants nearest their limit of \(rows.count); every grant is in the table.</p>\n"
        }
        svg +=
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1180 \(Int(height))\" width=\"100%\" "
            + "style=\"max-width:1180px\" role=\"img\" "
            + "aria-label=\"percent of each grant's limit used, by app and wallet\">\n"
        let bottom = top + Double(shown.count) * rowHeight
        for percent in stride(from: 0, through: 100, by: 25) {
            let x = left + barWidth * Double(percent) / 100
            svg += "<line class=\"grid\" x1=\"\(x)\" y1=\"\(top - 6)\" x2=\"\(x)\" y2=\"\(bottom)\"/>"
            svg += "<text x=\"\(x)\" y=\"\(top - 10)\" text-anchor=\"middle\">\(percent)%</text>"
            svg += "<text x=\"\(x)\" y=\"\(bottom + 16)\" text-anchor=\"middle\">\(percent)%</text>\n"
        }
        svg +=
            "<text x=\"\(left + barWidth / 2)\" y=\"\(bottom + 32)\" text-anchor=\"middle\">"
            + "percent of the grant's limit used</text>\n"
        for (index, row) in shown.enumerated() {
            let y = top + Double(index) * rowHeight + 4
            let percent = min(100, Double(Self.hundredths(row.percentUsed)) / 100)
            let label = "\(row.appName) · \(row.walletName) · \(row.grantLabel)"
            let used = row.amountText(row.usedUnits, raw: row.used)
            let limit = row.amountText(row.limitUnits, raw: row.limit)
            svg +=
                "<text x=\"0\" y=\"\(y + 13)\">\(Self.escape(Self.clipped(label, 56)))</text>"
            svg += "<rect class=\"bar-limit\" x=\"\(left)\" y=\"\(y)\" width=\"\(barWidth)\" height=\"16\"/>"
            svg +=
                "<rect class=\"\(chartStatus(row))\" x=\"\(left)\" y=\"\(y)\" "
                + "width=\"\(String(format: "%.1f", barWidth * percent / 100))\" height=\"16\"><title>"
                + Self.escape("\(label): \(used) of \(limit), \(row.status)") + "</title></rect>"
            svg +=
                "<text x=\"\(left + barWidth + 10)\" y=\"\(y + 13)\">"
                + Self.escape(
                    Self.clipped("\(row.percentUsed.isEmpty ? "-" : row.percentUsed + "%")  \(used) of \(limit)", 52))
                + "</text>\n"
        }
        return svg + "</svg>\n"
    }

    /// `text` cut to `length` characters, an ellipsis marking the cut (the bar's tooltip has it whole).
    static func clipped(_ text: String, _ length: Int) -> String {
        text.count > length ? String(text.prefix(length - 1)) + "…" : text
    }

    /// A percentage text ("85.00") in hundredths, exactly; 0 when empty.
    static func hundredths(_ percent: String) -> Int {
        let parts = percent.split(separator: ".")
        let whole = parts.first.flatMap { Int($0) } ?? 0
        let fraction =
            parts.count > 1 ? Int(parts[1].prefix(2).padding(toLength: 2, withPad: "0", startingAt: 0)) ?? 0 : 0
        return whole * 100 + fraction
    }

    static func table(id: String, header: [String], rows: [[String]], near: [Bool] = []) -> String {
        var text = "<table class=\"sortable\" id=\"\(id)\"><thead><tr>"
        text += header.map { "<th>\(escape($0))</th>" }.joined() + "</tr></thead><tbody>\n"
        for (index, row) in rows.enumerated() {
            let isNear = index < near.count && near[index]
            text +=
                (isNear ? "<tr class=\"near\">" : "<tr>") + row.map { "<td>\(escape($0))</td>" }.joined() + "</tr>\n"
        }
        return text + "</tbody></table>\n"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
