"""nbgrader: the course as an nbgrader course (`course`), what its autograder cells run (`autograder`), and a class's scores in its gradebook (`gradebook`)."""
