import CustosCore

/// Dates are stored in both dialects as `Int64` milliseconds since 1970 (see `StoredTime`).
typealias SQLTime = StoredTime
