/// The Custos release this code is.
public enum CustosVersion {
    public static let current = "0.1.0"
}
