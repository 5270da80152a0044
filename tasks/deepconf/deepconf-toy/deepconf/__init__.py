"""DeepConf on a toy language model: confidence measures, offline filtering and voting, online early stopping."""
