"""Any input a student hands in, turned into one private workspace of the files students edit."""
