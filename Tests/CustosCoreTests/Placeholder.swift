// Placeholder until the first test lands; delete when it does.
