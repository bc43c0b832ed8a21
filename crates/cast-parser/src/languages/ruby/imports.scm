; Ruby `require 'a/b'` (from the load path) and `require_relative 'b'` (from the file's
; folder); see `ruby.rs`'s `require`.

(call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list . (string))
  (#any-of? @_require "require" "require_relative")) @import @import.tree
