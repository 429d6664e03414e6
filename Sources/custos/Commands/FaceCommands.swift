/// The face engine's commands, registered in `CommandLineTool.allCommands`.
enum FaceCommands {
    static let all: [Command] = [
        FaceAnalyzeCommand.command, FaceCompareCommand.command, FaceBenchCommand.command, EvalPairsCommand.command,
        EvalCalibrateCommand.command, EvalLivenessCommand.command,
    ]
}
