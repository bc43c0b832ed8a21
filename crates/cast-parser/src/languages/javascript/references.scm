; JavaScript calls, `new`, and base classes (also read for TypeScript).

(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(new_expression
  constructor: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call
