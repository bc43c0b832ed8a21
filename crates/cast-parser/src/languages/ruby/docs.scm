; Ruby comments: the comments right above a definition document it (RDoc and YARD read them
; so); the comments a file opens with describe it (magic comments such as
; `# frozen_string_literal: true` and a licence header are skipped).

(comment) @doc
(program . (comment)+ @doc.module)
