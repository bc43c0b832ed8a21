; PHP calls (functions, `$x->m()`, `$x?->m()`, `A::m()`), `new A`, base classes, interfaces,
; traits used, and types named in signatures.

(function_call_expression function: (name) @name) @reference.call
(function_call_expression
  function: (qualified_name prefix: (namespace_name) @receiver (name) @name .)) @reference.call
(member_call_expression object: (_) @receiver name: (name) @name) @reference.call
(nullsafe_member_call_expression object: (_) @receiver name: (name) @name) @reference.call
(scoped_call_expression scope: (_) @receiver name: (name) @name) @reference.call
(object_creation_expression (name) @name) @reference.call
(object_creation_expression (qualified_name (name) @name .)) @reference.call

(base_clause (name) @name) @reference.inherit
(base_clause (qualified_name (name) @name .)) @reference.inherit
(class_interface_clause (name) @name) @reference.inherit
(class_interface_clause (qualified_name (name) @name .)) @reference.inherit
(use_declaration (name) @name) @reference.inherit
(use_declaration (qualified_name (name) @name .)) @reference.inherit

(named_type (name) @name) @reference.type
(named_type (qualified_name (name) @name .)) @reference.type
