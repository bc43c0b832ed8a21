; Javadoc comments (`/** … */`) document what follows.

((block_comment) @doc (#match? @doc "^/\\*\\*"))
