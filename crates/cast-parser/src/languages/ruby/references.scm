; Ruby calls (with a receiver or without; a bare name with no arguments is not told from a
; local variable by the grammar, so it is no reference), `Klass.new`, superclasses and mixins
; (`include`, `extend`, `prepend`: what a class inherits), and constants named in code.

(call
  method: (identifier) @_mixin
  arguments: (argument_list [
    (constant) @name
    (scope_resolution scope: (_) @receiver name: (constant) @name)
  ])
  (#any-of? @_mixin "include" "extend" "prepend")) @reference.inherit
(superclass (constant) @name) @reference.inherit
(superclass (scope_resolution scope: (_) @receiver name: (constant) @name)) @reference.inherit

(call receiver: (constant) @name method: (identifier) @_new (#eq? @_new "new")) @reference.call
(call
  receiver: (scope_resolution scope: (_) @receiver name: (constant) @name)
  method: (identifier) @_new (#eq? @_new "new")) @reference.call
(call receiver: _ @receiver method: (identifier) @name) @reference.call
(call !receiver method: (identifier) @name) @reference.call

(scope_resolution scope: (_) @receiver name: (constant) @name) @reference.type
(constant) @name @reference.type
