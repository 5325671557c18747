"""Rules as code: a domain's rules file, read, checked before it is trusted, and proposed by the compiler.

- `rules_file`: the rules file (`environment.rules`, YAML) read into typed rules, and written;
- a rule's names are checked against the domain's tools, arguments, tables and columns as a compiled
  assertion's are (`describe.name_checks`);
- `examples`: a rule run on the example dialogs it must pass and fail;
- `citations`: the policy passage a rule cites, checked against the document, and the run's policies it
  enforces;
- `review`: all of these, which decide the rules a run uses and those it refuses, each with a one-line reason;
- `chart_procedures`: a procedure read from a flowchart with no model;
- `proposed_rules`: the compiled assertions of a run written as a proposed rules file, with examples, beside a
  reviewed one and never over it, with a readable diff;
- `command`: `intellagent rules test` and `intellagent rules compile`.
"""
