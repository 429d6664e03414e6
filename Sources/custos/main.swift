import Foundation

exit(await CommandLineTool.main(CommandLine.arguments).rawValue)
