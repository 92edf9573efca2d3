"""Drop-tail FIFO (spec: :class:`qosmodels.mechanisms.DropTail`): admits everything the buffer holds."""

CODE = 0
PARAMS = ()
