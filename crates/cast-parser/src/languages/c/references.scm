; C calls (a call through a struct field names the field) and types named in declarations.

(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call

(type_identifier) @name @reference.type
