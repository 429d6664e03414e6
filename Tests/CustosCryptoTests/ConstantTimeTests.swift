import Foundation
import Testing
@testable import CustosCrypto

@Suite("Constant-time comparison")
struct ConstantTimeTests {
    @Test func equal() {
        #expect(ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
        #expect(ConstantTime.equals(Data([9, 8]), [9, 8] as [UInt8]))
        #expect(ConstantTime.equals("token", "token"))
    }

    @Test func unequal() {
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        #expect(!ConstantTime.equals([0, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!ConstantTime.equals("token", "tokem"))
    }

    @Test("different lengths are unequal")
    func differentLengths() {
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2] as [UInt8]))
        #expect(!ConstantTime.equals([UInt8](), [0] as [UInt8]))
        #expect(!ConstantTime.equals("abc", "abcd"))
    }
}
