import CustosCore
import Foundation
import Testing

/// The binding table as docs/security.md states it: every way a device becomes bound or
/// confirmed has its row there, and what the code does with each binding (probation, what a
/// device bound so may do) is what its row says.
@Suite struct BindingTableTests {
    @Test func everyBindingHasItsRowInTheSecurityGuide() throws {
        let guide = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs").appendingPathComponent("security.md"), encoding: .utf8)
        for binding in DeviceBinding.allCases {
            #expect(guide.contains(binding.tableRow), "\(binding.rawValue) missing from docs/security.md's binding table")
        }
        // No row in the guide names a binding the code does not know.
        let named = guide.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| `"), let end = line.dropFirst(3).firstIndex(of: "`") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
        }
        let bindingRows = Set(named).intersection(Set(["activation", "registration_code", "password", "device_approval", "face_match", "passkey",
                                                       "unrecorded"]))
        #expect(bindingRows == Set(DeviceBinding.allCases.map(\.rawValue)))
    }

    /// What the rows say of probation and confirmation is what the code reads: only another
    /// bound device's approval (or the first activation, or a passkey added from a trusted
    /// device) skips the probation; only the password alone leaves a device unconfirmed.
    @Test func probationAndConfirmationAreWhatTheRowsSay() {
        #expect(DeviceBinding.allCases.filter(\.startsProbation) == [.registrationCode, .password, .faceMatch])
        #expect(DeviceBinding.allCases.filter { !$0.isConfirmed } == [.password])
        for binding in DeviceBinding.allCases where binding.startsProbation && binding.isConfirmed {
            #expect(binding.allows.contains("on probation"), "\(binding.rawValue)'s row must say it is on probation")
        }
        #expect(DeviceBinding.password.endedBy.contains("password change or expiry"))
    }
}
