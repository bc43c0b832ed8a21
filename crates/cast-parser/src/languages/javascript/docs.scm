; JSDoc comments (`/** … */`) document what follows; one at the very top describes the file.

((comment) @doc (#match? @doc "^/\\*\\*"))
(program . (comment) @doc.module (#match? @doc.module "^/\\*\\*"))
