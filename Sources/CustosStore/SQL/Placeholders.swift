/// Rewrites `?` positional placeholders into PostgreSQL's `$1…$n`, leaving a `?` inside a
/// string literal ('…'), a quoted identifier ("…"), a line comment (-- …) or a block comment
/// (/* … */) untouched. Dollar-quoted strings and backslash escapes (E'…') are not recognised:
/// the stores' SQL never uses them.
enum Placeholders {
    static func dollarNumbered(_ sql: String) -> String {
        var out = String.UnicodeScalarView()
        let scalars = Array(sql.unicodeScalars)
        var index = 0
        var number = 0
        while index < scalars.count {
            let c = scalars[index]
            switch c {
            case "'", "\"":
                // Copy through the closing quote; a doubled quote is an escaped quote.
                out.append(c)
                index += 1
                while index < scalars.count {
                    out.append(scalars[index])
                    if scalars[index] == c {
                        if index + 1 < scalars.count, scalars[index + 1] == c {
                            out.append(scalars[index + 1])
                            index += 2
                            continue
                        }
                        break
                    }
                    index += 1
                }
                index += 1
            case "-" where index + 1 < scalars.count && scalars[index + 1] == "-":
                while index < scalars.count, scalars[index] != "\n" {
                    out.append(scalars[index])
                    index += 1
                }
            case "/" where index + 1 < scalars.count && scalars[index + 1] == "*":
                out.append(c)
                out.append(scalars[index + 1])
                index += 2
                while index < scalars.count {
                    if scalars[index] == "*", index + 1 < scalars.count, scalars[index + 1] == "/" {
                        out.append("*")
                        out.append("/")
                        index += 2
                        break
                    }
                    out.append(scalars[index])
                    index += 1
                }
            case "?":
                number += 1
                out.append("$")
                out.append(contentsOf: String(number).unicodeScalars)
                index += 1
            default:
                out.append(c)
                index += 1
            }
        }
        return String(out)
    }
}
