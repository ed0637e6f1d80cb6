"""The recurrent-cell operators behind nn.LSTMCell/GRUCell/RNNCell, nn.LSTM/GRU/RNN, torch.lstm_cell, torch._VF and
torch.ops.aten, named once for both sides of the trust boundary: a student process of ex05 or ex06 blocks them at the
dispatcher (grader.inside.given), and the static policy (course/ex05/policy.py) flags their names in the source.
Standard library only: the grading process and the student process import it."""

CELL_OPS = ("lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell", "_thnn_fused_lstm_cell", "_thnn_fused_gru_cell")
# Blocked in both overloads (`.input`, `.data`); flagged only as attributes of torch's operator namespaces.
SEQUENCE_OPS = ("lstm", "gru", "rnn_tanh", "rnn_relu")
