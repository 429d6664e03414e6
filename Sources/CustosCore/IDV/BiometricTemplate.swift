import Foundation

/// A user's face template: descriptors of the best live frames and their mean. Lives only
/// in memory in the clear; stored sealed (`SealedTemplate`).
public struct BiometricTemplate: Sendable, Equatable, Codable {
    /// The descriptor model (dlib's ResNet v1): descriptors of different models never compare.
    public static let currentModelID = "dlib_face_recognition_resnet_model_v1"

    public var modelID: String
    public var descriptors: [FaceDescriptor]
    public var mean: FaceDescriptor
    /// Mean quality (0-1) of the frames it was made from.
    public var quality: Double

    public init(modelID: String = BiometricTemplate.currentModelID, descriptors: [FaceDescriptor], mean: FaceDescriptor, quality: Double) {
        self.modelID = modelID
        self.descriptors = descriptors
        self.mean = mean
        self.quality = quality
    }
}

/// The stored form: the template encrypted (AES-256-GCM) under the key `keyID` names, bound
/// to its user, plus what may be read without decrypting.
public struct SealedTemplate: Sendable, Equatable {
    public var userID: String
    public var keyID: String
    public var ciphertext: Data
    public var modelID: String
    public var quality: Double
    public var workflow: IDVWorkflow
    public var consentVersion: String
    public var consentAt: Date
    public var createdAt: Date
    public var updatedAt: Date

    public init(userID: String, keyID: String, ciphertext: Data, modelID: String, quality: Double, workflow: IDVWorkflow,
                consentVersion: String, consentAt: Date, createdAt: Date, updatedAt: Date) {
        self.userID = userID
        self.keyID = keyID
        self.ciphertext = ciphertext
        self.modelID = modelID
        self.quality = quality
        self.workflow = workflow
        self.consentVersion = consentVersion
        self.consentAt = consentAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
