;;; memd-test.el --- memd.el against a real memd  -*- lexical-binding: t -*-
