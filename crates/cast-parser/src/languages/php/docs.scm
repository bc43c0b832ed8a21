; PHPDoc comments (`/** … */`) document what follows; one opening the file (after `<?php`)
; describes it.

((comment) @doc (#match? @doc "^/\\*\\*"))
(program . (php_tag) . (comment) @doc.module (#match? @doc.module "^/\\*\\*"))
