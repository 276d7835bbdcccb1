"""One module of bot/ at a time, without the Application: unit/<package>/ mirrors bot/<package>/."""
