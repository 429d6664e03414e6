import CustosCore
import Foundation

/// Writes the ROC curve (TAR against FAR on a log axis) as a self-contained SVG, and the
/// points as CSV.
public enum ROCChart {
    public static func svg(_ points: [FacePairMetrics.Point], title: String, impostors: Int) -> String {
        let width = 640.0, height = 480.0, left = 70.0, right = 20.0, top = 40.0, bottom = 60.0
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let minimumExponent = min(-1, floor(log10(1 / Double(max(impostors, 10)))))
        func x(_ far: Double) -> Double {
            let exponent = far > 0 ? max(minimumExponent, log10(far)) : minimumExponent
            return left + (exponent - minimumExponent) / -minimumExponent * plotWidth
        }
        func y(_ tar: Double) -> Double { top + (1 - tar) * plotHeight }
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(width / 2)" y="22" text-anchor="middle" font-size="15">\(escape(title))</text>
        <rect x="\(left)" y="\(top)" width="\(plotWidth)" height="\(plotHeight)" fill="none" stroke="black"/>

        """
        var exponent = minimumExponent
        while exponent <= 0 {
            let px = x(pow(10, exponent))
            svg += "<line x1=\"\(px)\" y1=\"\(top)\" x2=\"\(px)\" y2=\"\(top + plotHeight)\" stroke=\"#ddd\"/>"
            svg += "<text x=\"\(px)\" y=\"\(top + plotHeight + 18)\" text-anchor=\"middle\">1e\(Int(exponent))</text>\n"
            exponent += 1
        }
        for step in 0...10 {
            let tar = Double(step) / 10, py = y(tar)
            svg += "<line x1=\"\(left)\" y1=\"\(py)\" x2=\"\(left + plotWidth)\" y2=\"\(py)\" stroke=\"#eee\"/>"
            svg += "<text x=\"\(left - 8)\" y=\"\(py + 4)\" text-anchor=\"end\">\(String(format: "%.1f", tar))</text>\n"
        }
        let polyline = points.map { String(format: "%.2f,%.2f", x($0.far), y($0.tar)) }.joined(separator: " ")
        svg += "<polyline points=\"\(polyline)\" fill=\"none\" stroke=\"#1f5fbf\" stroke-width=\"2\"/>\n"
        svg += "<text x=\"\(left + plotWidth / 2)\" y=\"\(height - 15)\" text-anchor=\"middle\">false accept rate (log scale)</text>\n"
        svg += "<text x=\"18\" y=\"\(top + plotHeight / 2)\" text-anchor=\"middle\" transform=\"rotate(-90 18 \(top + plotHeight / 2))\">true accept rate</text>\n"
        svg += "</svg>\n"
        return svg
    }

    public static func csv(_ points: [FacePairMetrics.Point]) -> String {
        "threshold,far,tar\n" + points.map { String(format: "%.6f,%.6f,%.6f", $0.threshold, $0.far, $0.tar) }.joined(separator: "\n") + "\n"
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
