"""Parity tables: flowjob's legacy API checked against a OneFlow v0.4.0 clone, row by row.

Each table is generated from the clone's sources (Python read with ``ast``, the op
registrations in ``oneflow/user/ops`` read by a small C preprocessor) and compared with
flowjob's objects; a row either passes or carries one line of reason from a checked-in list.

* ``signatures``: the parameters of every ``@oneflow_export`` function and class of the legacy
  API against flowjob's object at the same public path;
* ``eager``: the same rules for OneFlow v0.4's eager API (``oneflow.experimental``: the
  ``@experimental_api`` layers, functions and optimizers with their methods, ``Tensor``'s
  methods and properties, ``nn.Module``'s methods);
* ``normalizers``: the helpers OneFlow's ops call to normalize arguments (``_GetSequence``,
  padding and data-format spellings...) and which ops call them;
* ``op_types``: every ``REGISTER_USER_OP`` type with its arguments and attributes, and whether
  ``flow.user_op_builder(...).Op(type)`` builds it;
* ``report``: the counts, and the section of ``docs/guides/migrating.md`` that shows them.

The clone is ``$FLOWJOB_ONEFLOW_SRC`` (a bare clone is fine: files are read with
``git archive`` of the tag).
"""
